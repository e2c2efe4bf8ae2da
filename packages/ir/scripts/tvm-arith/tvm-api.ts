/**
 * The Python names TVM's arithmetic tests use (`tvm.arith.Analyzer`, `tvm.ir.Range`, `T.int32`,
 * the tests' own `CanonicalChecker`), bound to our Analyzer. A check that fails throws
 * `CheckFailed`, with what was expected and what came out.
 */
import { Analyzer, allowUintAsIndex, sameExprStructure } from "../../src/arith/index.js";
import { TesseraError } from "../../src/errors.js";
import { printExpr } from "../../src/printer/index.js";
import { type PrimExpr, call, intImm, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import {
  NEG_INF,
  NONE,
  POS_INF,
  type PyValue,
  Untranslatable,
  arg,
  fn,
  namespace,
  pyBool,
  pyExpr,
  pyInt,
  strOf,
  tirxNamespace,
  toPrim,
  tvmOp,
} from "./python-values.js";
import { reductionOf, reductionValue, sameReductionValue, teReductionMembers } from "./te-reduce.js";

export class CheckFailed extends Error {}

export function show(e: PrimExpr): string {
  try {
    return printExpr(e);
  } catch {
    return JSON.stringify(e);
  }
}

/** Structural equality as TVM's tests ask it (dtypes included, variables by identity). */
export function structurallyEqual(a: PyValue, b: PyValue): boolean {
  const reductions = sameReductionValue(a, b);
  if (reductions !== undefined) return reductions;
  const x = a.t === "int" ? toPrim(a, "int32") : toPrim(a);
  const y = b.t === "int" ? toPrim(b, "int32") : toPrim(b);
  return x.dtype === y.dtype && sameExprStructure(x, y);
}

function expectEqual(got: PyValue, expected: PyValue): PyValue {
  if (!structurallyEqual(got, expected)) {
    throw new CheckFailed(`got ${showValue(got)}, expected ${showValue(expected)}`);
  }
  return NONE;
}

const bigOf = (n: number): bigint => (n === Infinity ? POS_INF : n === -Infinity ? NEG_INF : BigInt(n));
const numOf = (b: bigint): number => (b >= POS_INF ? Infinity : b <= NEG_INF ? -Infinity : Number(b));

function intValue(v: PyValue, what: string): bigint {
  if (v.t === "int") return v.v;
  if (v.t === "expr" && v.e.kind === "IntImm") return BigInt(v.e.value);
  throw new Untranslatable(`${what}: expected an integer`);
}

export function constIntBoundValue(min: bigint, max: bigint): PyValue {
  return namespace("ConstIntBound", { min_value: pyInt(min), max_value: pyInt(max) });
}

function rangeValue(min: PrimExpr, extent: PrimExpr): PyValue {
  return namespace("Range", { min: pyExpr(min), extent: pyExpr(extent) });
}

function asRange(v: PyValue): { min: PrimExpr; extent: PrimExpr } | undefined {
  if (v.t !== "obj" || v.name !== "Range") return undefined;
  return { min: toPrim(v.attr("min")!), extent: toPrim(v.attr("extent")!) };
}

/** A context manager value: `with` calls enter, and the exit it returns on leaving. */
export function contextManager(enter: () => () => void): PyValue {
  const enterFn = fn("__enter__", () => {
    const exit = enter();
    return fn("__exit__", () => {
      exit();
      return NONE;
    });
  });
  return namespace("context", { __enter__: enterFn });
}

function showValue(v: PyValue): string {
  const r = reductionOf(v);
  if (r !== undefined)
    return `Reduce(source=[${r.source.map(show).join(", ")}], result=[${r.combiner.result.map(show).join(", ")}], value_index=${r.valueIndex})`;
  return show(v.t === "int" ? toPrim(v, "int32") : toPrim(v));
}

/** `canonical_simplify` of an expression or of a `Reduce`. */
function canonicalValue(an: Analyzer, v: PyValue): PyValue {
  const r = reductionOf(v);
  if (r === undefined) return pyExpr(an.canonicalSimplify(toPrim(v, v.t === "int" ? "int32" : undefined)));
  const out = an.canonicalSimplifyReduction(r);
  return out.kind === "Reduction" ? reductionValue(out) : pyExpr(out);
}

export function analyzerValue(an: Analyzer = new Analyzer()): PyValue {
  // TVM's Analyzer.simplify is its pipeline (tvmSimplify); our `simplify` is lowering's linear one.
  const simplifyFn = fn("simplify", (args) => pyExpr(an.tvmSimplify(toPrim(args[0]!, args[0]!.t === "int" ? "int32" : undefined))));
  const canonicalFn = fn("canonical_simplify", (args) => canonicalValue(an, args[0]!));
  const rewriteFn = fn("rewrite_simplify", (args) => pyExpr(an.rewriteSimplify(toPrim(args[0]!, args[0]!.t === "int" ? "int32" : undefined))));
  return namespace("Analyzer", {
    simplify: simplifyFn,
    rewrite_simplify: rewriteFn,
    canonical_simplify: canonicalFn,
    const_int_bound: fn("const_int_bound", (args) => {
      const b = an.constIntBound(toPrim(args[0]!));
      return constIntBoundValue(bigOf(b.min), bigOf(b.max));
    }),
    modular_set: fn("modular_set", (args) => {
      const m = an.modularSet(toPrim(args[0]!));
      return namespace("ModularSet", { coeff: pyInt(m.coeff), base: pyInt(m.base) });
    }),
    bind: fn("bind", (args, kw) => {
      const v = toPrim(args[0]!);
      if (v.kind !== "Var") throw new Untranslatable("bind of a non-variable");
      const r = asRange(args[1]!);
      const override = kw.get("allow_override") ?? args[2];
      const allow = override !== undefined && override.t === "int" && override.v !== 0n;
      try {
        an.bind(v, r === undefined ? toPrim(args[1]!) : range(r.min, r.extent), allow);
      } catch (err) {
        throw new PythonError(err instanceof Error ? err.message : String(err));
      }
      return NONE;
    }),
    update: fn("update", (args, kw) => {
      const v = toPrim(args[0]!);
      const b = args[1]!;
      if (v.kind !== "Var" || b.t !== "obj") throw new Untranslatable("update");
      const override = kw.get("override") ?? args[2];
      const allow = override !== undefined && override.t === "int" && override.v !== 0n;
      try {
        an.update(v, { min: numOf(intValue(b.attr("min_value")!, "min")), max: numOf(intValue(b.attr("max_value")!, "max")) }, allow);
      } catch (err) {
        throw new PythonError(err instanceof Error ? err.message : String(err));
      }
      return NONE;
    }),
    can_prove: fn("can_prove", (args, kw) => {
      const strength = args[1] ?? kw.get("strength");
      return pyBool(an.tvmCanProve(toPrim(args[0]!), strength !== undefined && strength.t === "int" && strength.v === 1n ? "symbolicBound" : "default"));
    }),
    can_prove_equal: fn("can_prove_equal", (args) => pyBool(an.tvmCanProveEqual(toPrim(args[0]!), toPrim(args[1]!)))),
    const_int_bound_is_bound: fn("const_int_bound_is_bound", (args) => {
      const v = toPrim(args[0]!);
      return pyBool(v.kind === "Var" && an.boundOf(v) !== undefined);
    }),
    constraint_scope: fn("constraint_scope", (args) => {
      const c = args[0]!;
      return contextManager(() => an.enterConstraint(c.t === "int" ? intImm(Number(c.v), "bool") : toPrim(c)));
    }),
  });
}

/** A Python exception raised by the code under test (pytest.raises may expect it). */
export class PythonError extends Error {}

/**
 * Python's RuntimeError, the class of TVM's errors (TVMError): what the analyzer raises about its
 * input (a TesseraError, such as a division by a constant zero) stands for it.
 */
export const RUNTIME_ERROR: PyValue = namespace("RuntimeError", {});

export function isExceptionClass(v: PyValue): boolean {
  return v === RUNTIME_ERROR;
}

export function raisesRuntimeError(err: unknown): boolean {
  return err instanceof TesseraError;
}

function checkerValue(): PyValue {
  const an = new Analyzer();
  const analyzer = analyzerValue(an);
  return namespace("CanonicalChecker", {
    analyzer,
    verify: fn("verify", (args) => expectEqual(canonicalValue(an, args[0]!), args[1]!)),
  });
}

export function moduleScope(): Map<string, PyValue> {
  const tirx = tirxNamespace();
  const te = namespace("te", {
    var: fn("var", (args, kw) =>
      pyExpr(variable(strOf(arg(args, kw, 0, "name", { t: "str", v: "tindex" }), "var"), strOf(arg(args, kw, 1, "dtype", { t: "str", v: "int32" }), "var"))),
    ),
    size_var: fn("size_var", () => {
      throw new Untranslatable("te.size_var");
    }),
    ...teReductionMembers(),
  });
  const arith = namespace("arith", {
    Analyzer: fn("Analyzer", () => analyzerValue()),
    ConstIntBound: namespace("ConstIntBound", { POS_INF: pyInt(POS_INF), NEG_INF: pyInt(NEG_INF) }, (args) =>
      constIntBoundValue(intValue(args[0]!, "min"), intValue(args[1]!, "max")),
    ),
    ProofStrength: namespace("ProofStrength", { DEFAULT: pyInt(0), SYMBOLIC_BOUND: pyInt(1) }),
    Extension: namespace("Extension", { NoExtensions: pyInt(0) }),
    allow_uint_as_index: fn("allow_uint_as_index", () => contextManager(() => allowUintAsIndex())),
  });
  const fromMinExtent = fn("from_min_extent", (args) => rangeValue(toPrim(args[0]!), toPrim(args[1]!)));
  const rangeClass = namespace("Range", { from_min_extent: fromMinExtent }, (args) => {
    const begin = toPrim(args[0]!);
    if (args.length === 1) return rangeValue(intImm(0, begin.dtype), begin);
    return rangeValue(begin, tvmOp("sub", toPrim(args[1]!, begin.dtype), begin));
  });
  const ir = namespace("ir", {
    Range: rangeClass,
    assert_structural_equal: fn("assert_structural_equal", (args) => expectEqual(args[0]!, args[1]!)),
    GlobalVar: fn("GlobalVar", (args) => namespace("GlobalVar", { name_hint: arg(args, new Map(), 0, "name_hint") })),
    // A call of a global function: an opaque call (side effects unknown) of that name.
    Call: fn("Call", (args, kw) => {
      const callee = arg(args, kw, 0, "op");
      const name = callee.t === "obj" && callee.name === "GlobalVar" ? callee.attr("name_hint") : undefined;
      const callArgs = arg(args, kw, 1, "args");
      if (name === undefined || callArgs.t !== "tuple") throw new Untranslatable("ir.Call of an operator");
      const dt = strOf(arg(args, kw, 2, "ret_ty", { t: "str", v: "int32" }), "ir.Call");
      return pyExpr(
        call(
          dt,
          strOf(name, "GlobalVar"),
          callArgs.items.map((a) => toPrim(a)),
        ),
      );
    }),
  });
  const testing = namespace("testing", {
    parameter: fn("parameter", (args) => ({ t: "tuple", items: args })),
    main: fn("main", () => NONE),
  });
  const tvm = namespace("tvm", { tirx, tir: tirx, te, arith, ir, testing });
  const tvmFfi = namespace("tvm_ffi", { structural_equal: fn("structural_equal", (args) => pyBool(structurallyEqual(args[0]!, args[1]!))) });
  const pytest = namespace("pytest", {
    raises: fn("raises", () => {
      throw new Untranslatable("pytest.raises");
    }),
  });
  return new Map<string, PyValue>([
    ["tvm", tvm],
    ["tvm_ffi", tvmFfi],
    ["tirx", tirx],
    ["te", te],
    ["T", tirx],
    ["pytest", pytest],
    ["RuntimeError", RUNTIME_ERROR],
    ["CanonicalChecker", fn("CanonicalChecker", () => checkerValue())],
    ["int", fn("int", (args) => pyInt(intValue(args[0]!, "int")))],
    ["isinstance", fn("isinstance", () => pyBool(false))],
    ["range", fn("range", (args) => pyRange(args))],
    ["zip", fn("zip", (args) => zipValues(args))],
    [
      "len",
      fn("len", (args) => {
        if (args[0]?.t !== "tuple") throw new Untranslatable("len of a non-sequence");
        return pyInt(args[0].items.length);
      }),
    ],
  ]);
}

function pyRange(args: readonly PyValue[]): PyValue {
  const ints = args.map((a) => Number(intValue(a, "range")));
  const [start, stop, step] = ints.length === 1 ? [0, ints[0]!, 1] : [ints[0]!, ints[1]!, ints[2] ?? 1];
  if (step === 0) throw new PythonError("range() arg 3 must not be zero");
  const items: PyValue[] = [];
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) items.push(pyInt(i));
  return { t: "tuple", items };
}

function zipValues(args: readonly PyValue[]): PyValue {
  const lists = args.map((a) => {
    if (a.t !== "tuple") throw new Untranslatable(`zip of ${a.t}`);
    return a.items;
  });
  const n = Math.min(...lists.map((l) => l.length));
  return { t: "tuple", items: Array.from({ length: n }, (_, i) => ({ t: "tuple", items: lists.map((l) => l[i]!) }) as PyValue) };
}
