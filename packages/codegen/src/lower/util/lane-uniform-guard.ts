/**
 * Whether a guard inside a vectorized loop has the same value in every lane, proven with the
 * analyzer's modular sets: then the vector runs under one guard instead of being scalarised (a
 * padded tile's fetch `if (x + lane < 1000)` with `x` a multiple of 4 stays one float4 access).
 *
 * A comparison of `d(lane) = d₀ + s·lane` with 0 over lanes 0…n−1 can change value only where
 * the lanes straddle a step of the comparison; when the smallest lane's value is a multiple of
 * |s|·n, the n lanes lie inside one aligned window [q·|s|·n, (q+1)·|s|·n) that no step splits.
 */
import { Analyzer, type PrimExpr, type Var, add, intImm, simplify, sub, substitute } from "@tessera/ir";
import { strideIn } from "../kernel/affine.js";

export interface LaneRange {
  readonly v: Var;
  readonly min: PrimExpr;
  readonly lanes: number;
}

/**
 * The guard at the first lane when `cond` provably has the same value in every lane of `loop`,
 * else undefined. Handles comparisons affine in the loop variable joined by `&&`, `||` and `!`.
 */
export function laneUniformGuard(cond: PrimExpr, loop: LaneRange): PrimExpr | undefined {
  return isLaneUniform(cond, loop, new Analyzer()) ? simplify(substitute(cond, new Map([[loop.v, loop.min]]))) : undefined;
}

function isLaneUniform(cond: PrimExpr, loop: LaneRange, analyzer: Analyzer): boolean {
  if (strideIn(cond, loop.v) === 0) return true;
  if (cond.kind === "Not") return isLaneUniform(cond.a, loop, analyzer);
  if (cond.kind !== "Binary") return false;
  switch (cond.op) {
    case "and":
    case "or":
      return isLaneUniform(cond.a, loop, analyzer) && isLaneUniform(cond.b, loop, analyzer);
    case "lt":
    case "ge":
      // a < b ⇔ a − b < 0; a ≥ b is its negation.
      return thresholdIsUniform(sub(cond.a, cond.b), loop, analyzer);
    case "le":
    case "gt":
      // a ≤ b ⇔ a − b − 1 < 0; a > b is its negation.
      return thresholdIsUniform(sub(sub(cond.a, cond.b), intImm(1)), loop, analyzer);
    default:
      return false;
  }
}

/** Whether `d < 0` has one value over the loop's lanes (`d` affine in the loop variable). */
function thresholdIsUniform(d: PrimExpr, loop: LaneRange, analyzer: Analyzer): boolean {
  const stride = strideIn(d, loop.v);
  if (stride === undefined) return false;
  if (stride === 0) return true;
  // The smallest lane value: the first lane when d grows with the lane, the last when it shrinks.
  const smallestLane = stride > 0 ? loop.min : simplify(add(loop.min, intImm(loop.lanes - 1)));
  const smallest = simplify(substitute(d, new Map([[loop.v, smallestLane]])));
  const window = Math.abs(stride) * loop.lanes;
  const congruence = analyzer.modularSet(smallest);
  return congruence.coeff % window === 0 && mod(congruence.base, window) === 0;
}

function mod(a: number, n: number): number {
  return ((a % n) + n) % n;
}
