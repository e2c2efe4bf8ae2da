/**
 * How ReplayPool cuts a batch's pooled replays into chunks (one task pool job each). When its
 * workers take them as they come free (no caller's share): guided self-scheduling. Each chunk is 1/GUIDED_SHARE of an
 * even share of the replays still to hand out, so chunks shrink as the batch goes: the first ones
 * are large (few messages), the last ones a replay or two, so that the workers finish together
 * rather than waiting on one that took a large chunk late. Replays of one batch differ in cost
 * (a rejected one stops early; on a 2048³ gemm's first round their CPU runs from 15 to 55 ms), and
 * with equal chunks of a third of a worker's share a round's projected wall on 15 workers was
 * 27–39 % above its CPU spread evenly, against 15–25 % so (search-workers-local.md, session 18). The cut only decides which worker replays what: the
 * replies come back in request order whatever it is.
 */

/** The share of an even split of the remaining replays that the next chunk takes. */
export const GUIDED_SHARE = 2;

/** The chunks of `count` replays for `workers` workers, as [from, to) ranges in request order. */
export function guidedChunks(count: number, workers: number): [number, number][] {
  if (!Number.isSafeInteger(count) || count < 0) throw new RangeError(`guidedChunks: count must be a non-negative integer, got ${count}`);
  if (!Number.isSafeInteger(workers) || workers < 1) throw new RangeError(`guidedChunks: workers must be a positive integer, got ${workers}`);
  const chunks: [number, number][] = [];
  for (let from = 0; from < count; ) {
    const to = from + Math.ceil((count - from) / (workers * GUIDED_SHARE));
    chunks.push([from, to]);
    from = to;
  }
  return chunks;
}

/** `count` replays cut into one equal chunk a worker (beside the caller's share, which waits for the slowest anyway). */
export function evenChunks(count: number, workers: number): [number, number][] {
  const size = Math.max(1, Math.ceil(count / workers));
  const out: [number, number][] = [];
  for (let from = 0; from < count; from += size) out.push([from, Math.min(from + size, count)]);
  return out;
}
