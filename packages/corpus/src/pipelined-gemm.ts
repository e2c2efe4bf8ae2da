/**
 * A software-pipelined schedule of `D = ReLU(A·B) + C`: 64×64 block tiles over 256 threads with
 * 4×4 register tiles, k in chunks of 8 staged in shared memory by cooperative fetches bound to
 * `threadIdx.x` inside the compute's thread loop, and the k-chunk loop annotated for
 * `injectSoftwarePipeline` (fetch of A, fetch of B, compute). The default stages `[0, 0, 1]`
 * double-buffer both tiles: the next chunk is fetched while the current one is consumed.
 */
import { gemmReluAdd } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";

export interface PipelineAnnotation {
  /** `software_pipeline_stage` of the statements of the pipelined loop's body (here: A fetch, B fetch, compute). */
  readonly stages: readonly number[];
  /** `software_pipeline_order` of the same statements. */
  readonly order: readonly number[];
  readonly asyncStages?: readonly number[];
}

export const DOUBLE_BUFFERED: PipelineAnnotation = { stages: [0, 0, 1], order: [0, 1, 2] };

/** The schedule at size `n` (a multiple of 64); `pipeline: null` leaves the k loop unannotated. */
export function pipelinedGemmSchedule(n: number, pipeline: PipelineAnnotation | null = DOUBLE_BUFFERED): Schedule {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm);
  const [i0, i1, i2] = sch.split(i, [null, 16, 4]);
  const [j0, j1, j2] = sch.split(j, [null, 16, 4]);
  const [k0, k1] = sch.split(k, [null, 8]);
  sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2);
  sch.bind(sch.fuse(i0, j0), "blockIdx.x");
  const tx = sch.fuse(i1, j1);
  sch.bind(tx, "threadIdx.x");
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  sch.reverseComputeAt(writeBack, tx, true);
  for (const operand of [0, 1]) {
    const fetch = sch.cacheRead(gemm, operand, "shared");
    sch.computeAt(fetch, k0, true);
    const fused = sch.fuse(...sch.getLoops(fetch).slice(-2));
    const [, thread] = sch.split(fused, [null, 256]);
    sch.bind(thread, "threadIdx.x");
  }
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
  if (pipeline !== null) {
    sch.annotate(k0, "software_pipeline_stage", [...pipeline.stages]);
    sch.annotate(k0, "software_pipeline_order", [...pipeline.order]);
    if (pipeline.asyncStages !== undefined) sch.annotate(k0, "software_pipeline_async_stages", [...pipeline.asyncStages]);
  }
  return sch;
}
