export interface LowerOptions {
  /** Keep the IR after every pass in the result's `stages` (default false). */
  readonly recordStages?: boolean;
  /** Skip `verifyGpuCode` (e.g. to inspect a kernel that exceeds the target's limits); CUDA targets only. */
  readonly skipVerify?: boolean;
  /**
   * Run `foldWgmmaZeroFill`: zero fills of wgmma accumulators become scale-d 0 on the register-A wgmma
   * that next writes them (default false: on the H200 it gained nothing measurable for 3xTF32,
   * docs/benchmarks/tensor-core-tf32-2026-11-30-s15); CUDA targets only.
   */
  readonly foldWgmmaZeroFill?: boolean;
}
