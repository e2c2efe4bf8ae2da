/**
 * The part counts MultiLevelTiling's split-k variant samples from: powers of two from 2 to
 * MAX_SPLIT_K that divide the reduction's extent and leave each part at least MIN_SPLIT_DEPTH
 * iterations (a part shorter than that spends more on its partial sum's write than it saves).
 */

export const MAX_SPLIT_K = 16;

/**
 * The default space offers split-k to blocks of at least 2^28 multiply-adds (64×4096×4096 has
 * 2^30): below that a GEMM runs for microseconds on a large GPU (2^28 FMAs: 11 µs at an H200's
 * 50 TFLOP/s), where a second kernel's launch and the partial sums' traffic cost what the fuller
 * grid saves (and 256³ test GEMMs keep their one design space).
 */
export const SPLIT_K_MIN_ITERATIONS = 2 ** 28;
export const MIN_SPLIT_DEPTH = 128;

export function splitKCandidates(depth: number): number[] {
  const out: number[] = [];
  for (let parts = 2; parts <= MAX_SPLIT_K; parts *= 2) if (depth % parts === 0 && depth / parts >= MIN_SPLIT_DEPTH) out.push(parts);
  return out;
}
