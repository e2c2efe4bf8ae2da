/**
 * TVM's RewriteSimplifier (`Analyzer.rewrite_simplify`): bottom-up, each node's children first,
 * then constant folding, then the node kind's rules in TVM's order; the first rule that matches
 * gives the result (simplified once more for TVM's recursive rules, at most five levels deep).
 * Comparisons are decided from constant bounds and modular sets of `a - b` first, as TVM's
 * TryCompare does. It keeps TVM's canonical forms (`x - 1` is `x + -1`, `0 - y` for a negation),
 * which is why it is a simplifier of its own: lowering keeps the linear-form simplifier.
 */
import { dtypeInfo, isFloat } from "../../dtype.js";
import { type BinaryOp, type PrimExpr, binary, boolImm, bufferLoad, broadcast, call, cast, intImm, not, ramp, select } from "../../expr.js";
import { ceilLog2Argument, ceilLog2Value } from "../ceil-log2.js";
import { simplifyLet } from "../letInline.js";
import { foldCastConstant, gcdInt } from "../constFold.js";
import { ADD_RULES, MUL_RULES, SUB_RULES } from "./add-sub-mul.js";
import { foldingBinary, foldingNot } from "./folding.js";
import { AND_RULES, EQ_RULES, LT_RULES, NOT_RULES, OR_RULES, SELECT_RULES } from "./logic.js";
import { MAX_RULES, MIN_RULES } from "./min-max.js";
import { Match, buildPattern, matchPattern } from "./pattern.js";
import type { Rule, RuleContext } from "./rules.js";
import type { IntBound } from "../intBound.js";
import { sameExpr } from "../exprKey.js";
import { DIV_RULES, FLOORDIV_RULES, FLOORMOD_RULES, MOD_RULES } from "./div-mod.js";
import { DivisionByZeroError, hasLiteralZeroDivisor, rejectZeroDivisor } from "./zero-divisor.js";
import { uintAsIndexAllowed } from "../uint-as-index.js";

/** What the rewriter may know (an Analyzer). */
export interface RewriteFacts extends RuleContext {
  substitutionOf(v: PrimExpr & { kind: "Var" }): PrimExpr | undefined;
  knownCondition?(cond: PrimExpr): boolean | undefined;
  /** Assumes `cond` until the returned function is called (the branches of a select see their condition). */
  enterConstraint?(cond: PrimExpr): () => void;
}

const MAX_RECURSION = 5;

const RULES: Partial<Record<BinaryOp, readonly Rule[]>> = {
  add: ADD_RULES,
  sub: SUB_RULES,
  mul: MUL_RULES,
  div: DIV_RULES,
  mod: MOD_RULES,
  floordiv: FLOORDIV_RULES,
  floormod: FLOORMOD_RULES,
  min: MIN_RULES,
  max: MAX_RULES,
  and: AND_RULES,
  or: OR_RULES,
};

export function isIndexType(dt: string): boolean {
  const info = dtypeInfo(dt);
  return info.code === "int" && (info.bits === 32 || info.bits === 64) && info.lanes === 1;
}

/** uint32/uint64 scalars, which `allowUintAsIndex` admits where TVM's code says so. */
export function isUintIndexType(dt: string): boolean {
  const info = dtypeInfo(dt);
  return info.code === "uint" && (info.bits === 32 || info.bits === 64) && info.lanes === 1;
}

/** Fixed or scalable (negative lanes) vectors. */
function isVector(e: PrimExpr): boolean {
  return dtypeInfo(e.dtype).lanes !== 1;
}

function inScope(scope: Rule["scope"], vector: boolean, index: boolean, e: PrimExpr): boolean {
  switch (scope) {
    case "vector":
      return vector;
    case "index":
      return index;
    case "other":
      // TVM's cancellations (`x - x`, `x == x`) hold for floats only without NaN and infinities.
      return !index && !isFloat(e.dtype) && !(e.kind === "Binary" && isFloat(e.a.dtype));
    case "uint":
      return isUintIndexType(e.dtype);
    case "uintAsIndex":
      return isUintIndexType(e.dtype) && uintAsIndexAllowed();
    case "any":
      return true;
  }
}

type Comparison = "EQ" | "NE" | "LT" | "LE" | "GT" | "GE" | "unknown";

export class TvmRewriter {
  private depth = 0;
  /** One match per nesting level: a rule's condition may simplify (TryCompare) and match again. */
  private readonly matches: Match[] = [];
  private matchLevel = 0;

  /**
   * What rule conditions see: the analyzer's facts, except that `canProveEqual` is TVM's
   * TryCompare, which simplifies the difference with this simplifier itself before bounding it.
   */
  private readonly ruleContext: RuleContext;

  constructor(protected readonly facts: RewriteFacts) {
    this.ruleContext = {
      bound: (x) => facts.bound(x),
      modular: (x) => facts.modular(x),
      canProve: (c) => facts.canProve(c),
      canProveEqual: (a, b) => this.compare(a, b) === "EQ",
    };
  }

  visit(e: PrimExpr): PrimExpr {
    switch (e.kind) {
      case "IntImm":
      case "FloatImm":
      case "StringImm":
        return e;
      case "Var":
        return this.facts.substitutionOf(e) ?? e;
      case "Binary":
        return this.binary(e.op, this.visit(e.a), this.visit(e.b), e);
      case "Not":
        return this.notNode(this.visit(e.a));
      case "Select": {
        const cond = this.visit(e.condition);
        const whenTrue = this.branch(cond, e.trueValue);
        const whenFalse = this.branch(this.notNode(cond), e.falseValue);
        const s = select(cond, whenTrue, whenFalse);
        if (s.condition.kind === "IntImm") return s.condition.value !== 0 ? s.trueValue : s.falseValue;
        return this.applyRules(s, SELECT_RULES) ?? s;
      }
      case "Cast": {
        const v = this.visit(e.value);
        if (v.dtype === e.dtype) return v;
        return foldCastConstant(e.dtype, v) ?? (v === e.value ? e : cast(e.dtype, v));
      }
      case "Ramp":
        return ramp(this.visit(e.base), this.visit(e.stride), e.lanes);
      case "Broadcast":
        return broadcast(this.visit(e.value), e.lanes);
      case "BufferLoad":
        return bufferLoad(
          e.buffer,
          e.indices.map((i) => this.visit(i)),
        );
      case "Let":
        return simplifyLet(e, (x) => this.visit(x));
      case "Call": {
        if (e.op === "if_then_else" && e.args.length === 3) return this.ifThenElse(e.dtype, e.args[0]!, e.args[1]!, e.args[2]!);
        return foldCall(
          call(
            e.dtype,
            e.op,
            e.args.map((a) => this.visit(a)),
          ),
        );
      }
    }
  }

  /**
   * A branch simplified under its condition. A divisor that is zero only under that condition makes
   * the branch one that is never taken where it would divide (or a division the run time meets as
   * the original does): the branch stays as written instead of failing the whole simplification.
   */
  private branch(cond: PrimExpr, e: PrimExpr): PrimExpr {
    try {
      return this.assuming(cond, () => this.visit(e));
    } catch (err) {
      if (err instanceof DivisionByZeroError && !hasLiteralZeroDivisor(e)) return e;
      throw err;
    }
  }

  /** `f` evaluated while `cond` is assumed (TVM's constraint scopes around branches). */
  private assuming<T>(cond: PrimExpr, f: () => T): T {
    if (cond.kind === "IntImm" || this.facts.enterConstraint === undefined) return f();
    const exit = this.facts.enterConstraint(cond);
    try {
      return f();
    } finally {
      exit();
    }
  }

  /**
   * Each branch simplified under its condition; `if c1 then (if c2 then x else k) else k` for a
   * constant k merges into `if c1 && c2 then x else k`.
   */
  private ifThenElse(dtype: string, condition: PrimExpr, trueValue: PrimExpr, falseValue: PrimExpr): PrimExpr {
    const cond = this.visit(condition);
    const whenTrue = this.branch(cond, trueValue);
    const whenFalse = this.branch(not(cond), falseValue);
    if (cond.kind === "IntImm") return cond.value !== 0 ? whenTrue : whenFalse;
    if (whenTrue.kind === "Call" && whenTrue.op === "if_then_else" && whenTrue.args.length === 3) {
      const [innerCond, innerThen, innerElse] = whenTrue.args as [PrimExpr, PrimExpr, PrimExpr];
      if (isConstNumber(innerElse) && isConstNumber(whenFalse) && this.facts.canProve(foldingBinary("eq", innerElse, whenFalse))) {
        return call(dtype, "if_then_else", [foldingBinary("and", cond, innerCond), innerThen, whenFalse]);
      }
    }
    return call(dtype, "if_then_else", [cond, whenTrue, whenFalse]);
  }

  protected recurse(e: PrimExpr): PrimExpr {
    if (this.depth >= MAX_RECURSION) return e;
    this.depth++;
    try {
      return this.visit(e);
    } finally {
      this.depth--;
    }
  }

  /** The first rule of `list` that matches `e` and whose condition holds, applied. */
  private applyRules(e: PrimExpr, list: readonly Rule[]): PrimExpr | undefined {
    const vector = isVector(e);
    // Comparisons are index-typed when their operands are (TVM's IsIndexTypedExpr(ret->a)).
    const index = isIndexType(e.kind === "Binary" && e.dtype === "bool" ? e.a.dtype : e.dtype);
    const level = this.matchLevel++;
    const m = (this.matches[level] ??= new Match());
    try {
      for (const rule of list) {
        if (!inScope(rule.scope, vector, index, e)) continue;
        for (const p of rule.patterns) {
          m.clear();
          if (!matchPattern(p, e, m)) continue;
          if (rule.when !== undefined && !rule.when(m, this.ruleContext)) continue;
          const r = typeof rule.result === "function" ? rule.result(m, this.ruleContext) : buildPattern(rule.result, m, e.dtype);
          if (r === undefined) continue;
          return rule.recursive ? this.recurse(r) : r;
        }
      }
      return undefined;
    } finally {
      this.matchLevel--;
    }
  }

  private binary(op: BinaryOp, a: PrimExpr, b: PrimExpr, original?: PrimExpr): PrimExpr {
    if (op === "gt") return this.visitFolded(foldingBinary("lt", b, a));
    if (op === "ge") return this.visitFolded(foldingBinary("le", b, a));
    rejectZeroDivisor(op, a, b);
    const folded = foldingBinary(op, a, b);
    if (folded.kind !== "Binary" || folded.op !== op) return folded;
    const node = original !== undefined && original.kind === "Binary" && original.a === a && original.b === b ? original : folded;
    switch (op) {
      case "eq":
        return this.literal(node) ?? this.eq(node);
      case "ne":
        return this.literal(node) ?? this.ne(a, b);
      case "lt":
        return this.literal(node) ?? this.lt(node);
      case "le":
        return this.literal(node) ?? this.le(a, b);
      case "and":
      case "or":
        return this.literal(node) ?? this.applyRules(node, RULES[op]!) ?? node;
      default: {
        const list = RULES[op];
        return (list === undefined ? undefined : this.applyRules(node, list)) ?? node;
      }
    }
  }

  /** A comparison built by folding constructors: visited only when it did not fold. */
  private visitFolded(e: PrimExpr): PrimExpr {
    return e.kind === "Binary" ? this.binary(e.op, e.a, e.b, e) : e;
  }

  private literal(e: PrimExpr): PrimExpr | undefined {
    const k = this.facts.knownCondition?.(e);
    return k === undefined ? undefined : boolImm(k);
  }

  /** TVM's TryCompare(x - y, 0): constant bounds, then the modular set for ≠. */
  private compare(x: PrimExpr, y: PrimExpr): Comparison {
    const diff = this.visit(foldingBinary("sub", x, y));
    if (diff.kind === "IntImm") return diff.value === 0 ? "EQ" : diff.value > 0 ? "GT" : "LT";
    const b = this.facts.bound(diff);
    if (b.min === 0 && b.max === 0) return "EQ";
    if (b.min > 0) return "GT";
    if (b.max < 0) return "LT";
    if (b.min >= 0) return "GE";
    if (b.max <= 0) return "LE";
    if (this.facts.modular(diff).base !== 0) return "NE";
    return this.productAndSum(diff);
  }

  /**
   * TVM's ComparisonOfProductAndSum (an extension there, always on here): the sign of
   * `(A + B) * C - (A * B) * D` when A, B, C, D are positive (after flipping signs) and
   * `1/(A*D) + 1/(B*D) > 1/C` holds at their extreme bounds.
   */
  private productAndSum(diff: PrimExpr): Comparison {
    const m = matchProductAndSum(diff);
    if (m === undefined) return "unknown";
    const negate = (b: IntBound): IntBound => ({ min: -b.max, max: -b.min });
    let [a, b, c, d] = [this.facts.bound(m.a), this.facts.bound(m.b), this.facts.bound(m.c), negate(m.d)];
    const upper = d.max < 0;
    if (upper) [c, d] = [negate(c), negate(d)];
    if (c.max < 0) [a, b, c] = [negate(a), negate(b), negate(c)];
    if (!(a.min > 0 && b.min > 0 && c.min > 0 && d.min > 0) || d.max === Infinity) return "unknown";
    const reciprocalPositive =
      Math.min(a.max, b.max) * d.max <= c.min || (Number.isFinite(a.max) && Number.isFinite(b.max) && a.max * b.max * d.max < c.min * (a.max + b.max));
    if (!reciprocalPositive) return "unknown";
    return upper ? "LT" : "GT";
  }

  private eq(node: PrimExpr & { kind: "Binary" }): PrimExpr {
    if (isIndexType(node.a.dtype)) {
      const r = this.compare(node.a, node.b);
      if (r === "EQ") return boolImm(true);
      if (r === "NE" || r === "GT" || r === "LT") return boolImm(false);
    }
    return this.applyRules(node, EQ_RULES) ?? node;
  }

  private ne(a: PrimExpr, b: PrimExpr): PrimExpr {
    if (isIndexType(a.dtype)) {
      const r = this.compare(a, b);
      if (r === "NE" || r === "GT" || r === "LT") return boolImm(true);
      if (r === "EQ") return boolImm(false);
      if (r === "GE") return this.lt(binary("lt", b, a));
      if (r === "LE") return this.lt(binary("lt", a, b));
    }
    return this.notRules(not(this.eq(binary("eq", a, b))));
  }

  private le(a: PrimExpr, b: PrimExpr): PrimExpr {
    const ret = this.notRules(not(this.lt(binary("lt", b, a))));
    if (ret.kind === "Binary" && ret.op === "le" && isIndexType(ret.a.dtype)) {
      const r = this.compare(ret.a, ret.b);
      if (r === "LE" || r === "LT" || r === "EQ") return boolImm(true);
      if (r === "GT") return boolImm(false);
      if (r === "NE") return this.lt(binary("lt", ret.a, ret.b));
      if (r === "GE") return this.eq(binary("eq", ret.a, ret.b));
    }
    return ret;
  }

  private lt(node: PrimExpr & { kind: "Binary" }): PrimExpr {
    const vectorRules = isVector(node) ? this.applyRules(node, LT_RULES) : undefined;
    if (vectorRules !== undefined) return vectorRules;
    if (!isIndexType(node.a.dtype)) return node;
    const r = this.compare(node.a, node.b);
    if (r === "LT") return boolImm(true);
    if (r === "EQ" || r === "GT" || r === "GE") return boolImm(false);
    const ruled = this.applyRules(node, LT_RULES);
    if (ruled !== undefined) return ruled;
    const merged = mergeConstants(node.a, node.b);
    if (merged !== undefined) return this.recurse(merged);
    const factor = this.commonFactor(node.a, node.b);
    if (factor > 1) return this.recurse(binary("lt", foldingBinary("floordiv", node.a, factor), foldingBinary("floordiv", node.b, factor)));
    return node;
  }

  private commonFactor(a: PrimExpr, b: PrimExpr): number {
    const [ma, mb] = [this.facts.modular(a), this.facts.modular(b)];
    return gcdInt(gcdInt(ma.base, ma.coeff), gcdInt(mb.base, mb.coeff));
  }

  private notNode(a: PrimExpr): PrimExpr {
    if (a.kind === "IntImm") return foldingNot(a);
    const n = not(a);
    return this.literal(n) ?? this.notRules(n);
  }

  private notRules(n: PrimExpr): PrimExpr {
    if (n.kind === "Not" && n.a.kind === "IntImm") return foldingNot(n.a);
    return this.applyRules(n, NOT_RULES) ?? n;
  }
}

/** `(A + B) * C + (A * B) * k` (either order of terms and of A, B; k = 1 when absent) as A, B, C and k's bound. */
function matchProductAndSum(diff: PrimExpr): { a: PrimExpr; b: PrimExpr; c: PrimExpr; d: IntBound } | undefined {
  if (diff.kind !== "Binary" || diff.op !== "add") return undefined;
  for (const [p, q] of [
    [diff.a, diff.b],
    [diff.b, diff.a],
  ] as const) {
    if (q.kind !== "Binary" || q.op !== "mul" || q.a.kind !== "Binary" || q.a.op !== "add") continue;
    const [s1, s2] = [q.a.a, q.a.b];
    let product = p;
    let k = 1;
    if (p.kind === "Binary" && p.op === "mul" && p.b.kind === "IntImm") {
      product = p.a;
      k = p.b.value;
    }
    if (product.kind !== "Binary" || product.op !== "mul" || product.a.kind === "IntImm" || product.b.kind === "IntImm") continue;
    const [f1, f2] = [product.a, product.b];
    const same = (sameExpr(f1, s1) && sameExpr(f2, s2)) || (sameExpr(f1, s2) && sameExpr(f2, s1));
    if (same) return { a: s1, b: s2, c: q.b, d: { min: k, max: k } };
  }
  return undefined;
}

function isConstNumber(e: PrimExpr): boolean {
  return e.kind === "IntImm" || e.kind === "FloatImm";
}

/** TVM's folds of calls on constants: `likely(c)`, shifts of constants, `clz(c)`. */
function foldCall(e: PrimExpr & { kind: "Call" }): PrimExpr {
  const [a, b] = e.args;
  if (e.op === "likely" && a?.kind === "IntImm") return a;
  if ((e.op === "shift_left" || e.op === "shift_right") && a?.kind === "IntImm" && b?.kind === "IntImm") {
    return foldShift(e.op, a, b) ?? e;
  }
  if (e.op === "ceil" && a !== undefined) return foldCeil(e, a) ?? e;
  if (e.op === "clz" && a?.kind === "IntImm") {
    const bits = dtypeInfo(a.dtype).bits;
    const v = BigInt.asUintN(bits, BigInt(a.value));
    return intImm(v === 0n ? bits : bits - v.toString(2).length, e.dtype);
  }
  return e;
}

/** `ceil(c)` of a constant, and `ceil(log2(c))` of a float constant (topi's `ceil_log2`), as TVM folds them. */
function foldCeil(e: PrimExpr & { kind: "Call" }, a: PrimExpr): PrimExpr | undefined {
  if (a.kind === "IntImm") return foldCastConstant(e.dtype, a);
  if (a.kind === "FloatImm") return foldCastConstant(e.dtype, { ...a, value: Math.ceil(a.value) });
  const x = ceilLog2Argument(e);
  if (x?.kind !== "FloatImm") return undefined;
  const v = ceilLog2Value(x.value, x.dtype);
  return v === undefined ? undefined : foldCastConstant(e.dtype, { ...x, value: v });
}

/** `a << b` / `a >> b` of constants, with the dtype's width (undefined past it: left to run time). */
function foldShift(op: "shift_left" | "shift_right", a: PrimExpr & { kind: "IntImm" }, b: PrimExpr & { kind: "IntImm" }): PrimExpr | undefined {
  const info = dtypeInfo(a.dtype);
  if (b.value < 0 || b.value >= info.bits || info.lanes !== 1) return undefined;
  const x = BigInt(a.value);
  const r = op === "shift_left" ? x << BigInt(b.value) : x >> BigInt(b.value);
  const wrapped = info.code === "uint" ? BigInt.asUintN(info.bits, r) : BigInt.asIntN(info.bits, r);
  if (op === "shift_left" && info.code === "int" && wrapped !== r) return undefined;
  return intImm(Number(wrapped), a.dtype);
}

/** `a + c1 < b + c2` with the constants moved to one side, as TVM's merge_constants. */
function mergeConstants(a: PrimExpr, b: PrimExpr): PrimExpr | undefined {
  const [lhs, lo] = constantOffset(a);
  const [rhs, ro] = constantOffset(b);
  if (lo === 0 && ro === 0) return undefined;
  const diff = ro - lo;
  if (diff === 0) return binary("lt", lhs, rhs);
  if (diff === 1) return binary("le", lhs, rhs);
  if (diff < 0 && ro !== 0) return binary("lt", foldingBinary("add", lhs, intImm(-diff, lhs.dtype)), rhs);
  if (diff > 0 && lo !== 0) return binary("lt", lhs, foldingBinary("add", rhs, intImm(diff, rhs.dtype)));
  return undefined;
}

/** `x + c` / `x - c` as (x, ±c); anything else as (e, 0). */
function constantOffset(e: PrimExpr): [PrimExpr, number] {
  if (e.kind === "Binary" && e.b.kind === "IntImm" && (e.op === "add" || e.op === "sub")) return [e.a, e.op === "add" ? e.b.value : -e.b.value];
  return [e, 0];
}
