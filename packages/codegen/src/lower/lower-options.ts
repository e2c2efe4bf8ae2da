export interface LowerOptions {
  /** Keep the IR after every pass in the result's `stages` (default false). */
  readonly recordStages?: boolean;
  /** Skip `verifyGpuCode` (e.g. to inspect a kernel that exceeds the target's limits); CUDA targets only. */
  readonly skipVerify?: boolean;
  /** Run `foldWgmmaZeroFill` (default true; false keeps the accumulators' zero fills, to measure what folding them gains); CUDA targets only. */
  readonly foldWgmmaZeroFill?: boolean;
}
