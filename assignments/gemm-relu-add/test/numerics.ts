/** Test helper: runs a scheduled function and the unscheduled one on the same random inputs. */
import { type PrimFunc, compilePrimFunc, randomArgs } from "@tessera/ir";

/** The largest |actual − expected| − rtol·|expected| over D (≤ atol means allclose). */
export function maxExcessError(scheduled: PrimFunc, original: PrimFunc, seed: number, rtol: number): number {
  const inputs = randomArgs(original, seed);
  const expected = inputs.map((a) => a.slice());
  const actual = inputs.map((a) => a.slice());
  compilePrimFunc(original).run(expected);
  compilePrimFunc(scheduled).run(actual);
  const d = 3; // A, B, C, D
  const want = expected[d]!;
  const got = actual[d]!;
  let worst = 0;
  for (let n = 0; n < want.length; n++) {
    worst = Math.max(worst, Math.abs(got[n]! - want[n]!) - rtol * Math.abs(want[n]!));
  }
  return worst;
}
