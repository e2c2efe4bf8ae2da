/**
 * What a known remainder test says of another one: `floormod(x, c1) == b1` makes x ≡ b1 modulo
 * |c1|, which decides `floormod(x, c2) == b2` wherever c2 divides c1, whatever the signs (TVM's
 * ModularSet, entered as a constraint, does the same: `floormod(i, -2) == 0` proves `i % 2 == 0`).
 */
import { type PrimExpr, sameExprStructure } from "@tessera/ir";

interface RemainderTest {
  readonly x: PrimExpr;
  readonly divisor: number;
  readonly remainder: number;
}

/** `floormod(x, c) == b` (either side) with constant c ≠ 0 and b. */
function remainderTest(e: PrimExpr): RemainderTest | undefined {
  if (e.kind !== "Binary" || e.op !== "eq") return undefined;
  const [m, k] = e.b.kind === "IntImm" ? [e.a, e.b] : [e.b, e.a];
  if (k.kind !== "IntImm" || m.kind !== "Binary" || m.op !== "floormod" || m.b.kind !== "IntImm" || m.b.value === 0) return undefined;
  return { x: m.a, divisor: m.b.value, remainder: k.value };
}

/** floormod(v, d): the remainder with the sign of d. */
function floorMod(v: number, d: number): number {
  return v - Math.floor(v / d) * d + 0;
}

/** True or false when a known `floormod(x, c1) == b1` decides `cond` (an `==` or `!=` remainder test). */
export function decideByRemainder(cond: PrimExpr, known: readonly PrimExpr[]): boolean | undefined {
  const negated = cond.kind === "Binary" && cond.op === "ne";
  const query = remainderTest(negated ? { ...cond, op: "eq" } : cond);
  if (query === undefined) return undefined;
  for (const k of known) {
    const fact = remainderTest(k);
    if (fact === undefined || fact.divisor % query.divisor !== 0 || !sameExprStructure(fact.x, query.x)) continue;
    // The fact's remainder must be one floormod can give, or the fact is false and proves nothing here.
    if (floorMod(fact.remainder, fact.divisor) !== fact.remainder) continue;
    const holds = floorMod(fact.remainder, query.divisor) === query.remainder;
    return negated ? !holds : holds;
  }
  return undefined;
}
