/**
 * Index maps (TVM's `IndexMap`): a function from a buffer's indices to new indices, as used by
 * `transformLayout`. A map is built by calling the user's function on fresh variables; in a trace
 * it is stored as JSON (parameter names and an expression tree per result) and printed back as a
 * TypeScript arrow function.
 */
import { type PrimExpr, type Var, binary, bitwiseXor, intImm, variable } from "@tessera/ir";
import { ScheduleError } from "../../errors.js";
import type { InstructionAttr } from "../../instruction.js";

export interface IndexMap {
  readonly params: readonly Var[];
  readonly results: readonly PrimExpr[];
}

/** What a user's index map function may return per axis. */
export type IndexMapResult = PrimExpr | number;

export type IndexMapFn = (...indices: Var[]) => readonly IndexMapResult[];

/**
 * Integer operations an index map may use, with the names their JSON and TypeScript use; `xor`
 * (`bitwiseXor`, TVM's `^`) makes the swizzled layouts of `swizzleLayout`.
 */
const OPS = ["add", "sub", "mul", "floordiv", "floormod", "xor"] as const;
type MapOp = (typeof OPS)[number];

export type ExprJson = string | number | readonly [MapOp, ExprJson, ExprJson];

/** A malformed index map (also when read back from a trace). */
export class IndexMapError extends ScheduleError {
  override name = "IndexMapError";
  constructor(detail: string) {
    super("transform-layout", detail);
  }
}

/** Calls `fn` with `ndim` fresh variables `v0, v1, …` (or the function's own parameter names). */
export function indexMapFromFn(fn: IndexMapFn, ndim: number): IndexMap {
  const names = parameterNames(fn, ndim);
  const params = names.map((n) => variable(n, "int32"));
  let raw: unknown;
  try {
    raw = fn(...params);
  } catch (e) {
    throw new IndexMapError(`the index map function threw: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!Array.isArray(raw)) throw new IndexMapError(`the index map function must return an array of indices, got ${typeof raw}`);
  const results = raw.map((r, i) => {
    if (typeof r === "number" && Number.isInteger(r)) return intImm(r, "int32");
    if (r !== null && typeof r === "object" && typeof (r as PrimExpr).kind === "string") return r as PrimExpr;
    throw new IndexMapError(`result ${i} of the index map is not an index expression (got ${JSON.stringify(r)})`);
  });
  return { params, results };
}

/** The parameter names of an arrow function or function expression, when they are plain identifiers. */
function parameterNames(fn: IndexMapFn, ndim: number): string[] {
  const fallback = Array.from({ length: ndim }, (_, i) => `v${i}`);
  const m = /^\s*(?:function\s*\w*\s*)?\(?\s*([\w$\s,]*?)\s*\)?\s*(?:=>|\{)/.exec(fn.toString());
  if (m === null) return fallback;
  const names = m[1]!
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return names.length === ndim && names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n)) ? names : fallback;
}

/** The JSON form stored in traces: `{ params: ["v0", "v1"], results: ["v1", "v0"] }`. */
export function indexMapToAttr(map: IndexMap): InstructionAttr {
  return { params: map.params.map((p) => p.name), results: map.results.map((r) => exprToJson(r, map.params)) as InstructionAttr[] };
}

export function indexMapFromAttr(attr: unknown): IndexMap {
  if (attr === null || typeof attr !== "object" || Array.isArray(attr))
    throw new IndexMapError(`an index map must be an object { params, results }, got ${JSON.stringify(attr)}`);
  const { params, results } = attr as { params?: unknown; results?: unknown };
  if (!Array.isArray(params) || !params.every((p) => typeof p === "string"))
    throw new IndexMapError(`index map params must be a list of names, got ${JSON.stringify(params)}`);
  if (!Array.isArray(results)) throw new IndexMapError(`index map results must be a list, got ${JSON.stringify(results)}`);
  const vars = (params as string[]).map((p) => variable(p, "int32"));
  const byName = new Map(vars.map((v) => [v.name, v]));
  return { params: vars, results: results.map((r) => exprFromJson(r, byName)) };
}

function exprToJson(e: PrimExpr, params: readonly Var[]): ExprJson {
  if (e.kind === "IntImm") return e.value;
  if (e.kind === "Var") {
    if (!params.includes(e)) throw new IndexMapError(`the index map uses ${e.name}, which is not one of its parameters`);
    return e.name;
  }
  if (e.kind === "Binary" && (OPS as readonly string[]).includes(e.op)) return [e.op as MapOp, exprToJson(e.a, params), exprToJson(e.b, params)];
  if (e.kind === "Call" && e.op === "bitwise_xor") return ["xor", exprToJson(e.args[0]!, params), exprToJson(e.args[1]!, params)];
  const got = e.kind === "Binary" || e.kind === "Call" ? e.op : e.kind;
  throw new IndexMapError(`index maps may use + - * floordiv floormod bitwiseXor of their parameters and integers; got a ${got}`);
}

function exprFromJson(j: unknown, vars: ReadonlyMap<string, Var>): PrimExpr {
  if (typeof j === "number" && Number.isInteger(j)) return intImm(j, "int32");
  if (typeof j === "string") {
    const v = vars.get(j);
    if (v === undefined) throw new IndexMapError(`index map result uses unknown parameter "${j}"`);
    return v;
  }
  if (Array.isArray(j) && j.length === 3 && (OPS as readonly unknown[]).includes(j[0])) {
    const [a, b] = [exprFromJson(j[1], vars), exprFromJson(j[2], vars)];
    return j[0] === "xor" ? bitwiseXor(a, b) : binary(j[0] as Exclude<MapOp, "xor">, a, b);
  }
  throw new IndexMapError(`malformed index map expression ${JSON.stringify(j)}`);
}

/** The map as a TypeScript arrow function, for `applyTrace` printing: `(v0, v1) => [v1, v0]`. */
export function indexMapToTs(attr: unknown): string {
  const map = indexMapFromAttr(attr);
  return `(${map.params.map((p) => p.name).join(", ")}) => [${map.results.map(exprToTs).join(", ")}]`;
}

function exprToTs(e: PrimExpr): string {
  if (e.kind === "IntImm") return String(e.value);
  if (e.kind === "Var") return e.name;
  if (e.kind === "Binary") return `${e.op}(${exprToTs(e.a)}, ${exprToTs(e.b)})`;
  if (e.kind === "Call" && e.op === "bitwise_xor") return `bitwiseXor(${exprToTs(e.args[0]!)}, ${exprToTs(e.args[1]!)})`;
  return "?";
}

/**
 * The map's results at integer indices, without building IR: `evalIndexMap(attr)` returns a
 * function that computes them (floor division and modulus as TVM's, `xor` on the integers).
 */
export function indexMapEvaluator(attr: unknown): (indices: readonly number[]) => number[] {
  const { params, results } = attr as { params: readonly string[]; results: readonly ExprJson[] };
  const slot = new Map(params.map((p, i) => [p, i]));
  const compile = (j: ExprJson): ((x: readonly number[]) => number) => {
    if (typeof j === "number") return () => j;
    if (typeof j === "string") {
      const i = slot.get(j);
      if (i === undefined) throw new IndexMapError(`index map result uses unknown parameter "${j}"`);
      return (x) => x[i]!;
    }
    const [op, fa, fb] = [j[0], compile(j[1]), compile(j[2])];
    switch (op) {
      case "add":
        return (x) => fa(x) + fb(x);
      case "sub":
        return (x) => fa(x) - fb(x);
      case "mul":
        return (x) => fa(x) * fb(x);
      case "floordiv":
        return (x) => Math.floor(fa(x) / fb(x));
      case "floormod":
        return (x) => {
          const a = fa(x);
          const b = fb(x);
          return a - Math.floor(a / b) * b;
        };
      case "xor":
        return (x) => fa(x) ^ fb(x);
    }
  };
  const fns = results.map(compile);
  return (indices) => fns.map((f) => f(indices));
}
