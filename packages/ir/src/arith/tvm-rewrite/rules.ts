/**
 * Rewrite rules: patterns (one or several alternatives), a result (a pattern, or a function of
 * the match for results that need computing), an optional condition, and whether the result is
 * simplified again (TVM's TVM_TRY_RECURSIVE_REWRITE). A rule applies to vector expressions only,
 * to index-typed ones only (scalar int32/int64, TVM's IsIndexTypedExpr), or to any.
 */
import type { PrimExpr } from "../../expr.js";
import type { IntBound } from "../intBound.js";
import type { ModularSet } from "../modularSet.js";
import { type Match, type Pat, parsePattern } from "./pattern.js";

/** What rule conditions may ask the analyzer. */
export interface RuleContext {
  bound(e: PrimExpr): IntBound;
  modular(e: PrimExpr): ModularSet;
  canProve(cond: PrimExpr): boolean;
  canProveEqual(a: PrimExpr, b: PrimExpr): boolean;
}

/**
 * `other`: neither index-typed nor float (int8, uint32, integer vectors, …: TVM's else
 * branches, which TVM applies to floats too). `uint`: 32/64-bit unsigned. `uintAsIndex`: those
 * inside `allowUintAsIndex`, whose rules assume no wrap-around (TVM's uint_as_index blocks).
 */
export type RuleScope = "vector" | "index" | "other" | "uint" | "uintAsIndex" | "any";

export interface Rule {
  readonly scope: RuleScope;
  readonly patterns: readonly Pat[];
  readonly result: Pat | ((m: Match, ctx: RuleContext) => PrimExpr | undefined);
  readonly when?: (m: Match, ctx: RuleContext) => boolean;
  readonly recursive: boolean;
}

type Result = string | ((m: Match, ctx: RuleContext) => PrimExpr | undefined);
type Condition = (m: Match, ctx: RuleContext) => boolean;

/** Builds a rule list in the order rules are tried. */
export class RuleList {
  readonly rules: Rule[] = [];
  private scope: RuleScope = "any";

  /** Rules added from here on apply to `scope` expressions. */
  in(scope: RuleScope): this {
    this.scope = scope;
    return this;
  }

  private add(patterns: string | readonly string[], result: Result, when: Condition | undefined, recursive: boolean): this {
    const pats = (typeof patterns === "string" ? [patterns] : patterns).map(parsePattern);
    const res = typeof result === "string" ? parsePattern(result) : result;
    this.rules.push({ scope: this.scope, patterns: pats, result: res, recursive, ...(when === undefined ? {} : { when }) });
    return this;
  }

  rw(patterns: string | readonly string[], result: Result, when?: Condition): this {
    return this.add(patterns, result, when, false);
  }

  rec(patterns: string | readonly string[], result: Result, when?: Condition): this {
    return this.add(patterns, result, when, true);
  }
}

export function rules(): RuleList {
  return new RuleList();
}
