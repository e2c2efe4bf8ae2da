/**
 * The annotation keys through which the schedule rules hand sampled decisions to the
 * postprocessors. TVM's own keys keep TVM's names; the keys of Tessera's extra GEMM knobs carry
 * the `meta_schedule.` prefix too, since they play the same role (a sampled value on a block or
 * loop, turned into schedule primitives by a postprocessor and then removed).
 */

/** TVM: the tiling structure a block was tiled with (marks it as tiled). */
export const TILING_STRUCTURE = "meta_schedule.tiling_structure";
/** TVM: vector lanes of a cooperative fetch into shared memory (on the copy block). */
export const COOPERATIVE_FETCH = "meta_schedule.cooperative_fetch";
/** TVM: bounds on the threads per block of a tiled block, checked by VerifyGPUCode. */
export const THREAD_EXTENT_LOW = "meta_schedule.thread_extent_low_inclusive";
export const THREAD_EXTENT_HIGH = "meta_schedule.thread_extent_high_inclusive";
/** TVM: unroll budget on the root block, explicit or implicit expansion. */
export const UNROLL_EXPLICIT = "meta_schedule.unroll_explicit";
export const UNROLL_IMPLICIT = "meta_schedule.unroll_implicit";
/** TVM (CPU): the largest extent of a parallel loop, of a vectorized loop (on the root block). */
export const PARALLEL = "meta_schedule.parallel";
export const VECTORIZE = "meta_schedule.vectorize";
/**
 * Extra knob (CPU), on a tiled block: which read-only parameters RewriteLayout packs, a bit mask
 * over the function's buffer parameters (bit p: the p-th). Absent: every one it can (TVM's).
 */
export const LAYOUT_REWRITE = "meta_schedule.layout_rewrite_params";
/**
 * Extra knob (CPU), on the root: 1 runs the loop nest with the most work in a parallel region (and
 * no other nest), 0 runs every nest serially. Sampled only where the parallel-payoff rule's margin is
 * near its threshold (ParallelizeVectorizeUnroll); absent, the rule decides each nest.
 */
export const PARALLEL_REGION = "meta_schedule.parallel_region";

/** Extra knob, on the root: 1 expands unrolled loops here, 0 leaves them to nvcc (overrides the key's kind). */
export const UNROLL_EXPLICIT_FLAG = "meta_schedule.unroll_explicit_flag";
/** Extra knob, on a shared copy block: 1 stages the fetch through registers (global → local → shared). */
export const FETCH_VIA_REGISTERS = "meta_schedule.cooperative_fetch_via_registers";
/**
 * Extra knob, on a shared copy block: the thread order of a register-staged fetch. 0 (the default,
 * and what a trace without it replays): threads outermost, each thread's elements contiguous;
 * 1: threads inner, a warp's vectors of one round consecutive (conflict-free shared stores with
 * more than one vector per thread).
 */
export const FETCH_THREAD_INNER = "meta_schedule.cooperative_fetch_thread_inner";
/**
 * Extra knob, on a shared copy block: 1 stores the tile with dimension `SHARED_TRANSPOSE_AXIS`
 * moved last and the rows padded (transformLayout + storageAlign).
 */
export const SHARED_TRANSPOSE = "meta_schedule.shared_transpose";
/**
 * Knob on a tensor-core rule's shared tile (a sampled 0/1): 1 XOR-swizzles it (swizzleLayout's
 * permuted layout), 0 pads its rows by 16 bytes (storageAlign); RewriteSharedLayout applies it.
 */
export const SHARED_SWIZZLE = "meta_schedule.shared_swizzle";
/**
 * Extra knob (beyond TVM), on a wgmma space's shared tile: "K" gives it wgmma's 128B-swizzled
 * K-major layout (an A tile of 128-byte rows), "MN" the MN-major one (a B tile in 64-column
 * panels); RewriteSharedLayout applies it once the tile has its shape (`wgmmaSharedLayout`).
 */
export const WGMMA_SHARED_LAYOUT = "meta_schedule.wgmma_shared_layout";
/** The dimension of the shared tile that a transposed layout moves last (set by the rule with the knob). */
export const SHARED_TRANSPOSE_AXIS = "meta_schedule.shared_transpose_axis";
/** Extra knob, on the loop where a thread's operand slices are loaded: 1 caches them in registers. */
export const OPERAND_SLICES = "meta_schedule.operand_slices_in_registers";
/**
 * Extra knob, on the k-chunk loop: v ≥ 1 pipelines it (software_pipeline_stage/order), the compute
 * running v iterations behind the shared-memory stores (v + 1 shared buffers); 0 leaves it alone.
 */
export const SOFTWARE_PIPELINE = "meta_schedule.software_pipeline";
/** Extra knob, on the blockIdx loop: `launch_bounds_min_blocks_per_sm` (0 leaves it out). */
export const LAUNCH_BOUNDS = "meta_schedule.launch_bounds_min_blocks_per_sm";

/** TVM: the tensor intrinsic a block is to be tensorized with (RewriteTensorize does it). */
export const AUTO_TENSORIZE = "meta_schedule.auto_tensorize";
/**
 * TVM: the block runs one warp per threadIdx.y (tensor-core rules); its threadIdx.x is the 32
 * lanes of the warp, bound only inside the tensor intrinsics, so the postprocessors count it.
 */
export const WARP_EXECUTION = "warp_execution";
/** Extra knob, on a pipelined k-chunk loop: 1 makes its shared-memory fetches asynchronous (cp.async). */
export const SOFTWARE_PIPELINE_ASYNC = "meta_schedule.software_pipeline_async";
/**
 * Extra knob, on a pipelined k-chunk loop with asynchronous fetches: 1 loads the fetched tiles with
 * TMA instead of cp.async (RewriteSoftwarePipeline annotates the copy blocks `tma_copy`, which
 * lowerTmaCopy turns into one thread's TMA boxes on mbarriers; sm_90). No effect without a pipeline.
 */
export const SOFTWARE_PIPELINE_TMA = "meta_schedule.software_pipeline_tma";
/**
 * Extra knob, on the rfactor block of a split-k design space: the number of parts the reduction is
 * split into across the grid (only a record of the sampled value: the split already happened).
 */
export const SPLIT_K = "meta_schedule.split_k";

/** On a write-back block: vectorize its innermost loop where the widths and alignment allow. */
export const VECTORIZE_WRITE_BACK = "meta_schedule.vectorize_write_back";

/** The integer value of an annotation (a sampled value is an integer in the IR), or undefined. */
export function annotationNumber(annotations: Readonly<Record<string, unknown>>, key: string): number | undefined {
  const v = annotations[key];
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "IntImm") return (v as { value: number }).value;
  return undefined;
}
