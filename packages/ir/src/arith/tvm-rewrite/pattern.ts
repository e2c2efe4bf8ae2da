/**
 * Patterns for rewrite rules, written as text (`min(x, y + c1) + c2`) and parsed once.
 *
 * - `x y z w b1 b2 s1 s2`: any expression (a name bound twice must match structurally equal
 *   expressions); `c1 c2 c3 c4`: an integer constant (IntImm); `f1`: a float constant;
 *   `lanes`: the lane count of a `ramp`/`bcast`;
 * - integer literals match a constant of that value, and in a result take the dtype of the
 *   expression next to them (`0 - y`);
 * - `+ - * < <= > >= == != && || !` and `min max tdiv tmod fdiv fmod select ramp bcast`.
 *
 * Results are built through the constant-folding constructors (`c1 + c2` of two constants folds),
 * as TVM's pattern evaluation does.
 */
import { IRError } from "../../errors.js";
import { elementType, lanesOf } from "../../dtype.js";
import { type BinaryOp, type PrimExpr, broadcast, constIntValue, constant, ramp, select } from "../../expr.js";
import { sameExpr } from "../exprKey.js";
import { foldingBinary, foldingNot } from "./folding.js";

export type Pat =
  | { readonly k: "expr"; readonly name: string }
  | { readonly k: "int"; readonly name: string }
  | { readonly k: "float"; readonly name: string }
  | { readonly k: "lit"; readonly value: number }
  | { readonly k: "bin"; readonly op: BinaryOp; readonly a: Pat; readonly b: Pat }
  | { readonly k: "not"; readonly a: Pat }
  | { readonly k: "select"; readonly c: Pat; readonly t: Pat; readonly f: Pat }
  | { readonly k: "ramp"; readonly base: Pat; readonly stride: Pat; readonly lanes: string }
  | { readonly k: "bcast"; readonly value: Pat; readonly lanes: string };

/** What a match bound: expressions by name, and lane counts. */
export class Match {
  readonly exprs = new Map<string, PrimExpr>();
  readonly lanes = new Map<string, number>();

  e(name: string): PrimExpr {
    const v = this.exprs.get(name);
    if (v === undefined) throw new IRError(`rewrite rule: ${name} is not bound by its pattern`);
    return v;
  }

  /** The value of a constant bound as `c1`…. */
  c(name: string): number {
    const v = constIntValue(this.e(name));
    if (v === undefined) throw new IRError(`rewrite rule: ${name} is not an integer constant`);
    return v;
  }

  /**
   * Forgets every binding. The rewriter clears its Match before each of the hundreds of patterns it
   * tries per node, and most fail at their root before binding anything: V8's Map#clear allocates a
   * new backing table even for an empty map, so clearing only what holds entries saves that garbage.
   */
  clear(): void {
    if (this.exprs.size > 0) this.exprs.clear();
    if (this.lanes.size > 0) this.lanes.clear();
  }
}

const FUNCTIONS: Record<string, BinaryOp> = { min: "min", max: "max", tdiv: "div", tmod: "mod", fdiv: "floordiv", fmod: "floormod" };
const INFIX: readonly (readonly [string, BinaryOp])[] = [
  ["||", "or"],
  ["&&", "and"],
  ["<=", "le"],
  [">=", "ge"],
  ["==", "eq"],
  ["!=", "ne"],
  ["<", "lt"],
  [">", "gt"],
  ["+", "add"],
  ["-", "sub"],
  ["*", "mul"],
];
const LEVELS: readonly (readonly string[])[] = [["||"], ["&&"], ["<=", ">=", "==", "!=", "<", ">"], ["+", "-"], ["*"]];

export function parsePattern(src: string): Pat {
  const toks = src.match(/\d+|[A-Za-z_][A-Za-z_0-9]*|\|\||&&|<=|>=|==|!=|[-+*<>()!,]/g) ?? [];
  let pos = 0;
  const peek = (): string | undefined => toks[pos];
  const take = (t: string): void => {
    if (toks[pos] !== t) throw new IRError(`pattern ${JSON.stringify(src)}: expected ${t} at token ${pos}`);
    pos++;
  };
  const level = (i: number): Pat => {
    if (i === LEVELS.length) return unary();
    let a = level(i + 1);
    while (peek() !== undefined && LEVELS[i]!.includes(peek()!)) {
      const op = INFIX.find(([s]) => s === peek())![1];
      pos++;
      a = { k: "bin", op, a, b: level(i + 1) };
    }
    return a;
  };
  const unary = (): Pat => {
    if (peek() === "!") {
      pos++;
      return { k: "not", a: unary() };
    }
    return primary();
  };
  const args = (): Pat[] => {
    take("(");
    const out = [level(0)];
    while (peek() === ",") {
      pos++;
      out.push(level(0));
    }
    take(")");
    return out;
  };
  const primary = (): Pat => {
    const t = toks[pos++];
    if (t === undefined) throw new IRError(`pattern ${JSON.stringify(src)}: unexpected end`);
    if (t === "(") {
      const e = level(0);
      take(")");
      return e;
    }
    if (/^\d+$/.test(t)) return { k: "lit", value: Number(t) };
    if (peek() === "(") {
      const as = args();
      if (t in FUNCTIONS) return { k: "bin", op: FUNCTIONS[t]!, a: as[0]!, b: as[1]! };
      if (t === "select") return { k: "select", c: as[0]!, t: as[1]!, f: as[2]! };
      const lanes = as[2] ?? as[1];
      const lanesName = lanes?.k === "expr" ? lanes.name : undefined;
      if (t === "ramp" && lanesName !== undefined) return { k: "ramp", base: as[0]!, stride: as[1]!, lanes: lanesName };
      if (t === "bcast" && lanesName !== undefined) return { k: "bcast", value: as[0]!, lanes: lanesName };
      throw new IRError(`pattern ${JSON.stringify(src)}: unknown function ${t}`);
    }
    if (/^c\d$/.test(t)) return { k: "int", name: t };
    if (/^f\d$/.test(t)) return { k: "float", name: t };
    return { k: "expr", name: t };
  };
  const p = level(0);
  if (pos !== toks.length) throw new IRError(`pattern ${JSON.stringify(src)}: trailing ${toks[pos]}`);
  return p;
}

/** Matches `e` against `p`, extending `m`; false (with `m` partly filled) when it does not match. */
export function matchPattern(p: Pat, e: PrimExpr, m: Match): boolean {
  switch (p.k) {
    case "expr":
    case "int":
    case "float": {
      if (p.k === "int" && e.kind !== "IntImm") return false;
      if (p.k === "float" && e.kind !== "FloatImm") return false;
      const bound = m.exprs.get(p.name);
      if (bound !== undefined) return bound === e || sameExpr(bound, e);
      m.exprs.set(p.name, e);
      return true;
    }
    case "lit":
      return (e.kind === "IntImm" || e.kind === "FloatImm") && e.value === p.value;
    case "bin":
      return e.kind === "Binary" && e.op === p.op && matchPattern(p.a, e.a, m) && matchPattern(p.b, e.b, m);
    case "not":
      return e.kind === "Not" && matchPattern(p.a, e.a, m);
    case "select":
      return e.kind === "Select" && matchPattern(p.c, e.condition, m) && matchPattern(p.t, e.trueValue, m) && matchPattern(p.f, e.falseValue, m);
    case "ramp":
      return e.kind === "Ramp" && matchLanes(p.lanes, e.lanes, m) && matchPattern(p.base, e.base, m) && matchPattern(p.stride, e.stride, m);
    case "bcast":
      return e.kind === "Broadcast" && matchLanes(p.lanes, e.lanes, m) && matchPattern(p.value, e.value, m);
  }
}

function matchLanes(name: string, lanes: number, m: Match): boolean {
  const bound = m.lanes.get(name);
  if (bound !== undefined) return bound === lanes;
  m.lanes.set(name, lanes);
  return true;
}

/** A literal result in the dtype of the expression it replaces: float, or broadcast for a vector. */
function literal(value: number, dtype: string): PrimExpr {
  const lanes = lanesOf(dtype);
  return lanes === 1 ? constant(value, dtype) : broadcast(constant(value, elementType(dtype)), lanes);
}

/** Builds a result pattern from a match; `dtype` types a bare literal result (`0`). */
export function buildPattern(p: Pat, m: Match, dtype: string): PrimExpr {
  const build = (q: Pat): PrimExpr | number => (q.k === "lit" ? q.value : buildPattern(q, m, dtype));
  switch (p.k) {
    case "expr":
    case "int":
    case "float":
      return m.e(p.name);
    case "lit":
      return literal(p.value, dtype);
    case "bin":
      return foldingBinary(p.op, build(p.a), build(p.b));
    case "not":
      return foldingNot(buildPattern(p.a, m, "bool"));
    case "select":
      return select(buildPattern(p.c, m, "bool"), build(p.t), build(p.f));
    case "ramp":
      return ramp(buildPattern(p.base, m, dtype), build(p.stride), m.lanes.get(p.lanes)!);
    case "bcast":
      return broadcast(build(p.value), m.lanes.get(p.lanes)!);
  }
}
