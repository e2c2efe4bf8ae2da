/**
 * What a constraint (`x >= 0 && x < n && x % 4 == 1`) tells the analyzer: bounds of variables
 * compared with constants, congruences from remainder tests, and the conjuncts themselves.
 */
import type { PrimExpr, Var } from "../expr.js";
import { type IntBound, isIntegerDType } from "./intBound.js";
import { type ModularSet, modularSet } from "./modularSet.js";

export interface ConstraintFacts {
  readonly bounds: { readonly v: Var; readonly bound: IntBound }[];
  /** Bounds of compound expressions compared with constants (`1 <= a % 58`). */
  readonly exprBounds: { readonly e: PrimExpr; readonly bound: IntBound }[];
  readonly congruences: { readonly v: Var; readonly set: ModularSet }[];
  readonly conditions: PrimExpr[];
}

export function conjuncts(c: PrimExpr): PrimExpr[] {
  return c.kind === "Binary" && c.op === "and" ? [...conjuncts(c.a), ...conjuncts(c.b)] : [c];
}

/** `e op k` read as bounds of e, the expression on either side. */
function boundOfComparison(op: string, k: number, varOnLeft: boolean): IntBound | undefined {
  const o = varOnLeft ? op : ({ lt: "gt", le: "ge", gt: "lt", ge: "le", eq: "eq" } as Record<string, string>)[op];
  switch (o) {
    case "lt":
      return { min: -Infinity, max: k - 1 };
    case "le":
      return { min: -Infinity, max: k };
    case "gt":
      return { min: k + 1, max: Infinity };
    case "ge":
      return { min: k, max: Infinity };
    case "eq":
      return { min: k, max: k };
    default:
      return undefined;
  }
}

export function constraintFacts(c: PrimExpr): ConstraintFacts {
  const facts: ConstraintFacts = { bounds: [], exprBounds: [], congruences: [], conditions: conjuncts(c) };
  for (const x of facts.conditions) {
    if (x.kind !== "Binary" || !isIntegerDType(x.a.dtype)) continue;
    if (x.a.kind === "Var" && x.b.kind === "IntImm") {
      const bound = boundOfComparison(x.op, x.b.value, true);
      if (bound !== undefined) facts.bounds.push({ v: x.a, bound });
    } else if (x.b.kind === "Var" && x.a.kind === "IntImm") {
      const bound = boundOfComparison(x.op, x.a.value, false);
      if (bound !== undefined) facts.bounds.push({ v: x.b, bound });
    }
    if (x.a.kind !== "Var" && x.a.kind !== "IntImm" && x.b.kind === "IntImm") {
      const bound = boundOfComparison(x.op, x.b.value, true);
      if (bound !== undefined) facts.exprBounds.push({ e: x.a, bound });
    } else if (x.b.kind !== "Var" && x.b.kind !== "IntImm" && x.a.kind === "IntImm") {
      const bound = boundOfComparison(x.op, x.a.value, false);
      if (bound !== undefined) facts.exprBounds.push({ e: x.b, bound });
    }
    if (x.op === "eq" && x.b.kind === "IntImm") {
      const m = x.a;
      if (m.kind === "Binary" && (m.op === "floormod" || m.op === "mod") && m.a.kind === "Var" && m.b.kind === "IntImm" && m.b.value !== 0) {
        facts.congruences.push({ v: m.a, set: modularSet(m.b.value, x.b.value) });
      }
    }
  }
  return facts;
}
