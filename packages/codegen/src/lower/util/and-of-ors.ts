/**
 * A boolean expression as an AND of OR-clauses, simplified between literals of a clause and
 * between clauses (TVM's `convert_boolean_to_and_of_ors`):
 * - within a clause, `x || y` where one literal implies the other keeps the weaker one, and a
 *   clause whose literals cover every case is true;
 * - between clauses, `x && y` of single literals where one implies the other keeps the stronger;
 *   a clause containing all literals of another is redundant; two clauses of one length that
 *   differ in one literal, `(A || x) && (A || y)`, become `A || (x && y)` with `x && y`
 *   simplified knowing that `A` is false.
 * Implication is what util/known-facts.ts can decide. Duplicate literals and clauses that are
 * permutations of earlier ones are dropped; clauses keep the order they first occur in.
 */
import { type Analyzer, IRMutator, type PrimExpr, and, boolImm, or, sameExprStructure } from "@tessera/ir";
import { FactProver, type KnownFacts, NO_FACTS, withCondition, withNegation } from "./known-facts.js";

type Clause = PrimExpr[];

const TRUE = boolImm(true);
const FALSE = boolImm(false);
const isConst = (e: PrimExpr, value: boolean): boolean => e.kind === "IntImm" && (e.value !== 0) === value;
const same = (a: PrimExpr, b: PrimExpr): boolean => sameExprStructure(a, b);

function isLogical(e: PrimExpr, op: "and" | "or"): e is PrimExpr & { a: PrimExpr; b: PrimExpr } {
  return e.kind === "Binary" && e.op === op;
}

/** The clauses of `e`: `&&` splits, `||` distributes over the clauses of its sides. */
function clausesOf(e: PrimExpr): Clause[] {
  if (isLogical(e, "and")) return [...clausesOf(e.a), ...clausesOf(e.b)];
  if (isLogical(e, "or")) {
    const left = clausesOf(e.a);
    const right = clausesOf(e.b);
    return left.flatMap((l) => right.map((r) => [...l, ...r]));
  }
  return [[e]];
}

function dedupe(clauses: Clause[]): Clause[] {
  const out: Clause[] = [];
  for (const raw of clauses) {
    const clause = raw.filter((x, i) => raw.findIndex((y) => same(x, y)) === i);
    const permutation = out.some((c) => c.length === clause.length && c.every((x) => clause.some((y) => same(x, y))));
    if (!permutation) out.push(clause);
  }
  return out;
}

export class AndOfOrs {
  private readonly prover: FactProver;

  constructor(analyzer: Analyzer) {
    this.prover = new FactProver(analyzer, false);
  }

  /** `e` with each outermost `&&` / `||` rewritten. */
  rewriteWithin(e: PrimExpr): PrimExpr {
    const outer = this;
    return new (class extends IRMutator {
      override visitExpr(x: PrimExpr): PrimExpr {
        return isLogical(x, "and") || isLogical(x, "or") ? outer.rewrite(x) : super.visitExpr(x);
      }
    })().visitExpr(e);
  }

  /** `e` rewritten as a simplified AND of ORs, or `e` itself when that changes nothing. */
  rewrite(e: PrimExpr): PrimExpr {
    let clauses = dedupe(clausesOf(e));
    for (const clause of clauses) this.simplifyWithin(clause);
    clauses = this.dropConstants(clauses);
    this.simplifyAcross(clauses);
    clauses = this.dropConstants(clauses);
    if (clauses.length === 0) return TRUE;
    return clauses.map((c) => (c.length === 0 ? FALSE : c.reduce((acc, x) => or(acc, x)))).reduce((acc, c) => and(acc, c));
  }

  /** What `x` is when `facts` hold, if they decide it. */
  private decide(x: PrimExpr, facts: KnownFacts): boolean | undefined {
    return this.prover.decide(x, facts);
  }

  private simplifyWithin(clause: Clause): void {
    for (let i = 0; i < clause.length; i++) {
      for (let j = i + 1; j < clause.length; j++) {
        const [x, y] = [clause[i]!, clause[j]!];
        if (this.decide(y, withNegation(NO_FACTS, x)) === true || this.decide(x, withNegation(NO_FACTS, y)) === true) {
          clause[i] = FALSE;
          clause[j] = TRUE;
        } else if (this.decide(y, withCondition(NO_FACTS, x)) === true) {
          clause[i] = FALSE; // x implies y: x || y is y
        } else if (this.decide(x, withCondition(NO_FACTS, y)) === true) {
          clause[i] = FALSE;
          clause[j] = x; // y implies x: x || y is x
        }
      }
    }
  }

  /** `x && y` knowing `facts`: [first, second] after simplification (TRUE marks a dropped side). */
  private simplifyAnd(x: PrimExpr, y: PrimExpr, facts: KnownFacts): [PrimExpr, PrimExpr] {
    if (this.decide(y, withCondition(facts, x)) === false) return [TRUE, FALSE];
    if (this.decide(y, withCondition(facts, x)) === true) return [TRUE, x];
    if (this.decide(x, withCondition(facts, y)) === true) return [TRUE, y];
    return [x, y];
  }

  private simplifyAcross(clauses: Clause[]): void {
    for (let i = 0; i < clauses.length; i++) {
      for (let j = i + 1; j < clauses.length; j++) {
        const [ci, cj] = [clauses[i]!, clauses[j]!];
        if (ci.length === 1 && cj.length === 1) {
          [ci[0], cj[0]] = this.simplifyAnd(ci[0]!, cj[0]!, NO_FACTS);
          continue;
        }
        const onlyI = ci.findIndex((x) => !cj.some((y) => same(x, y)));
        if (onlyI < 0) {
          clauses[j] = [TRUE]; // ci's literals are all in cj: cj is implied
          continue;
        }
        const onlyJ = cj.findIndex((y) => !ci.some((x) => same(x, y)));
        if (onlyJ < 0) {
          clauses[i] = [TRUE];
          continue;
        }
        const shared = cj.filter((y) => ci.some((x) => same(x, y))).length;
        if (ci.length !== cj.length || shared + 1 !== ci.length) continue;
        const others = ci.filter((_, k) => k !== onlyI).reduce<KnownFacts>((facts, x) => withNegation(facts, x), NO_FACTS);
        [ci[onlyI], cj[onlyJ]] = this.simplifyAnd(ci[onlyI]!, cj[onlyJ]!, others);
      }
    }
  }

  private dropConstants(clauses: Clause[]): Clause[] {
    const kept = clauses.map((c) => (c.some((x) => isConst(x, true)) ? [TRUE] : c.filter((x) => !isConst(x, false))));
    if (kept.some((c) => c.length === 0)) return [[]];
    return kept.filter((c) => !(c.length === 1 && isConst(c[0]!, true)));
  }
}
