/**
 * TVM's TE reductions as the arithmetic tests build them: `te.reduce_axis`, `te.placeholder`
 * (a buffer, read by subscript), `te.comm_reducer` (Python lambdas for the combiner and the
 * identity, one component or a tuple of them) and `te.sum`; a `Reduce` value is our `Reduction`.
 */
import { type Reduction, reduction, sameReduction } from "../../src/arith/index.js";
import { declBuffer } from "../../src/buffer.js";
import { dtypeInfo } from "../../src/dtype.js";
import { type PrimExpr, type Var, binary, bufferLoad, constant, floatImm, intImm, variable } from "../../src/expr.js";
import { type Range, range } from "../../src/stmt.js";
import { NONE, type PyValue, Untranslatable, arg, fn, namespace, pyExpr, pyInt, strOf, toPrim } from "./python-values.js";

const REDUCTIONS = new WeakMap<PyValue, Reduction>();
const AXIS_DOMAINS = new WeakMap<Var, Range>();

export function reductionValue(r: Reduction): PyValue {
  const v = namespace("Reduce", {
    source: { t: "tuple", items: r.source.map(pyExpr) },
    value_index: pyInt(r.valueIndex),
    dtype: { t: "str", v: r.dtype },
  });
  REDUCTIONS.set(v, r);
  return v;
}

export function reductionOf(v: PyValue): Reduction | undefined {
  return REDUCTIONS.get(v);
}

/** Structural equality where either side may be a reduction. */
export function sameReductionValue(a: PyValue, b: PyValue): boolean | undefined {
  const x = reductionOf(a);
  const y = reductionOf(b);
  if (x === undefined && y === undefined) return undefined;
  return x !== undefined && y !== undefined && sameReduction(x, y);
}

export function teReductionMembers(): Record<string, PyValue> {
  const sum = commReducer(
    "sum",
    (x, y) => pyExpr(binary("add", toPrim(x), toPrim(y))),
    (dt) => zeroOf(dt),
  );
  return {
    reduce_axis: fn("reduce_axis", (args, kw) => {
      const dom = arg(args, kw, 0, "dom");
      const name = strOf(arg(args, kw, 1, "name", { t: "str", v: "rv" }), "reduce_axis");
      if (dom.t !== "tuple" || dom.items.length !== 2) throw new Untranslatable("reduce_axis domain");
      const lo = toPrim(dom.items[0]!, "int32");
      const hi = toPrim(dom.items[1]!, "int32");
      const v = variable(name, "int32");
      AXIS_DOMAINS.set(v, range(lo, subConst(hi, lo)));
      return pyExpr(v);
    }),
    placeholder: fn("placeholder", (args, kw) => {
      const shape = arg(args, kw, 0, "shape");
      if (shape.t !== "tuple") throw new Untranslatable("placeholder shape");
      const dt = strOf(arg(args, kw, 1, "dtype", { t: "str", v: "float32" }), "placeholder");
      const name = strOf(kw.get("name") ?? { t: "str", v: "placeholder" }, "placeholder");
      const buffer = declBuffer(
        name,
        shape.items.map((s) => toPrim(s, "int32")),
        dt,
      );
      return namespace("Tensor", {
        __getitem__: fn("__getitem__", (idx) =>
          pyExpr(
            bufferLoad(
              buffer,
              idx.map((i) => toPrim(i, "int32")),
            ),
          ),
        ),
      });
    }),
    comm_reducer: fn("comm_reducer", (args, kw) => {
      const combine = arg(args, kw, 0, "fcombine");
      const identity = arg(args, kw, 1, "fidentity");
      if (combine.t !== "fn" || identity.t !== "fn") throw new Untranslatable("comm_reducer of non-functions");
      return commReducer(
        "reduce",
        (x, y) => combine.call([x, y], new Map()),
        (...dts) =>
          identity.call(
            dts.map((d) => ({ t: "str", v: d })),
            new Map(),
          ),
      );
    }),
    sum,
  };
}

type Combine = (x: PyValue, y: PyValue) => PyValue;
type Identity = (...dtypes: string[]) => PyValue;

/** `reducer(expr, axis, where=None, init=None)`: one Reduce, or a tuple of them for a tuple of sources. */
function commReducer(name: string, combine: Combine, identity: Identity): PyValue {
  return fn(name, (args, kw) => {
    const exprArg = arg(args, kw, 0, "expr");
    const axisArg = arg(args, kw, 1, "axis");
    const where = kw.get("where") ?? args[2] ?? NONE;
    const initArg = kw.get("init") ?? args[3] ?? NONE;
    const isTuple = exprArg.t === "tuple";
    const source = (isTuple ? exprArg.items : [exprArg]).map((x) => toPrim(x));
    const n = source.length;
    const lhs = source.map((s, i) => variable(isTuple ? `x_${i}` : "x", s.dtype));
    const rhs = source.map((s, i) => variable(isTuple ? `y_${i}` : "y", s.dtype));
    const asTuple = (vs: readonly Var[]): PyValue => ({ t: "tuple", items: vs.map(pyExpr) });
    const combined = isTuple ? combine(asTuple(lhs), asTuple(rhs)) : combine(pyExpr(lhs[0]!), pyExpr(rhs[0]!));
    const ident = isTuple ? identity(...source.map((s) => s.dtype)) : identity(source[0]!.dtype);
    const listOf = (v: PyValue, what: string): PyValue[] => {
      const items = isTuple ? (v.t === "tuple" ? [...v.items] : undefined) : [v];
      if (items === undefined || items.length !== n) throw new Untranslatable(`comm_reducer ${what}`);
      return items;
    };
    const result = listOf(combined, "result").map((v, i) => toPrim(v, source[i]!.dtype));
    const identityElems = listOf(ident, "identity").map((v, i) => toPrim(v, source[i]!.dtype));
    const init = initArg.t === "none" ? [] : listOf(initArg, "init").map((v, i) => numberAs(v, source[i]!.dtype));
    const axes = (axisArg.t === "tuple" ? axisArg.items : [axisArg]).map(axisOf);
    const condition = where.t === "none" ? undefined : toPrim(where);
    const combiner = { lhs, rhs, result, identity: identityElems };
    const outputs = source.map((_, k) => reductionValue(reduction({ combiner, source, axes, condition, valueIndex: k, init })));
    return isTuple ? { t: "tuple", items: outputs } : outputs[0]!;
  });
}

function axisOf(v: PyValue): { var: Var; dom: Range } {
  const e = toPrim(v);
  const dom = e.kind === "Var" ? AXIS_DOMAINS.get(e) : undefined;
  if (e.kind !== "Var" || dom === undefined) throw new Untranslatable("a reduction axis that is not a reduce_axis");
  return { var: e, dom };
}

/** A Python number converted to `dt` (an int init of a float reduction included); expressions as they are. */
function numberAs(v: PyValue, dt: string): PrimExpr {
  if (v.t === "int" && dtypeInfo(dt).code === "float") return floatImm(Number(v.v), dt);
  return toPrim(v, dt);
}

function zeroOf(dt: string): PyValue {
  return pyExpr(dtypeInfo(dt).code === "float" ? floatImm(0, dt) : intImm(0, dt));
}

function subConst(hi: PrimExpr, lo: PrimExpr): PrimExpr {
  if (hi.kind === "IntImm" && lo.kind === "IntImm") return constant(hi.value - lo.value, hi.dtype);
  return binary("sub", hi, lo);
}
