/**
 * Why a candidate cannot run, in words that group well across candidates: "exceed 1024 threads per
 * block", "exceed 48 KB of shared memory per block" (a candidate breaking both limits says both),
 * rather than codegen's per-kernel message with that candidate's own numbers.
 */
import { GpuVerifyError, LoweringError, type Target } from "@tessera/codegen";

/** The reason a candidate that `lower` rejected with `err` is discarded. */
export function loweringFailureReason(err: unknown, target: Target): string {
  if (err instanceof GpuVerifyError) {
    const limits = new Set(err.violations.map((v) => exceededLimit(v, target)));
    // A block dimension over its limit means too many threads per block too: name only that.
    if (limits.has(threadsPerBlock(target))) for (const l of limits) if (l.startsWith("the threadIdx.")) limits.delete(l);
    return `exceed ${joinAnd([...limits])}`;
  }
  if (err instanceof LoweringError) return `cannot be lowered (${err.pass} fails)`;
  return "cannot be lowered";
}

/** The limit a GpuVerifyError violation names (its texts come from codegen's verifyGpuCode). */
function exceededLimit(violation: string, t: Target): string {
  if (/threads per block/.test(violation)) return threadsPerBlock(t);
  if (/bytes of shared memory/.test(violation)) return `${t.maxSharedMemoryPerBlock / 1024} KB of shared memory per block`;
  const dim = /^threadIdx\.([xyz]) has extent/.exec(violation)?.[1];
  if (dim !== undefined) return `the threadIdx.${dim} limit (${t.maxBlockDim["xyz".indexOf(dim)] ?? "?"})`;
  if (/^blockIdx\./.test(violation)) return "the grid size limit";
  if (/local memory|local buffer/.test(violation)) return "the local memory a thread may use";
  if (/vectors of at most/.test(violation)) return `${t.maxVectorBytes}-byte vectors`;
  return `the target's limits (${violation})`;
}

function threadsPerBlock(t: Target): string {
  return `${t.maxThreadsPerBlock} threads per block`;
}

/** "a", "a and b", "a, b and c". */
function joinAnd(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** How many candidates were discarded for one reason, with one example's full message. */
export interface DiscardTally {
  readonly reason: string;
  readonly count: number;
  readonly example: { readonly seed: number; readonly detail: string };
}

/** Groups discarded candidates by reason, the most common first. */
export function tallyReasons(discarded: readonly { readonly seed: number; readonly reason: string; readonly detail: string }[]): DiscardTally[] {
  const byReason = new Map<string, DiscardTally>();
  for (const d of discarded) {
    const seen = byReason.get(d.reason);
    byReason.set(d.reason, seen === undefined ? { reason: d.reason, count: 1, example: { seed: d.seed, detail: d.detail } } : { ...seen, count: seen.count + 1 });
  }
  return [...byReason.values()].sort((a, b) => b.count - a.count);
}
