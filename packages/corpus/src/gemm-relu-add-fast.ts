/**
 * A fast schedule of `D = ReLU(A·B) + C`, written only with schedule primitives and annotations:
 * the structure of a hand-tuned SGEMM expressed the way MetaSchedule's SSSRRSRS tiling does.
 *
 * - One thread block per `blockRows × blockCols` tile of D (`blockIdx.x`); its threads
 *   (`threadIdx.x`, `32 / warpCols × warpCols` threads per warp) each own
 *   `vthreadRows × vthreadCols` sub-tiles of `threadRows × threadCols` accumulators, the sub-tiles
 *   of a thread strided `blockRows / vthreadRows` apart (`vthread.y`, `vthread.x`), so that a
 *   warp's shared-memory reads are broadcasts or conflict-free.
 * - Per k chunk of `tileK`: A and B are fetched cooperatively with 128-bit loads into registers
 *   (`A_local`), then stored to shared memory; the A tile is stored transposed (`transformLayout`)
 *   with its rows padded by 4 floats (`storageAlign`) so that each thread reads its column slice
 *   with 128-bit loads and the transposed stores do not conflict.
 * - Software pipelining of the k loop (`software_pipeline_stage/order`, three stages): the global
 *   loads of chunk k+2 are issued before the FMAs of chunk k and stored to shared memory one
 *   iteration later, into the buffer the FMAs are not reading — double-buffered shared memory with
 *   register prefetch, one barrier per chunk.
 * - The accumulators are initialised before the k loop (`decomposeReduction`), live in registers,
 *   and the epilogue (ReLU, + C) is fused into their write-back with 128-bit loads and stores.
 * - Unrolling (`pragma_auto_unroll_max_step`, explicit) and `__launch_bounds__(threads, minBlocksPerSM)`.
 *
 * Optional knobs beyond FAST_PARAMS (their defaults generate the same code): `cp.async` fetches
 * with multi-stage pipelines, padding and fetch orders of the tiles, CUTLASS's interleaved lane
 * layout and warp tiles, dynamic shared memory (docs/benchmarks/fast-gemm-knobs.md).
 */
import { gemmReluAdd } from "@tessera/ir";
import { type BlockRV, type LoopRV, Schedule } from "@tessera/schedule";
import type { PipelineAnnotation } from "./pipelined-gemm.js";

export interface FastScheduleParams {
  /** Rows of D per thread block. */
  readonly blockRows: number;
  /** Columns of D per thread block. */
  readonly blockCols: number;
  /** Length of the k chunk staged in shared memory. */
  readonly tileK: number;
  /** Rows of one accumulator sub-tile of a thread. */
  readonly threadRows: number;
  /** Columns of one accumulator sub-tile of a thread. */
  readonly threadCols: number;
  /** Sub-tiles per thread along the rows (virtual threads). */
  readonly vthreadRows: number;
  /** Sub-tiles per thread along the columns (virtual threads). */
  readonly vthreadCols: number;
  /** Elements per vectorized global/shared access (4 = 128-bit). */
  readonly vector: number;
  /**
   * Software pipelining of the k-chunk loop, whose body is (A_local, A_shared, B_local, B_shared,
   * the k1 loop of FMAs): `software_pipeline_stage` and `software_pipeline_order` of those five
   * statements; null leaves the loop unpipelined.
   */
  readonly pipeline: PipelineAnnotation | null;
  /** `__launch_bounds__(threads, minBlocksPerSM)`; 0 leaves it out. */
  readonly minBlocksPerSM: number;
  /** `pragma_auto_unroll_max_step` of the compute (TVM semantics); 0 leaves it out. */
  readonly unrollMaxStep: number;
  /**
   * `pragma_unroll_explicit`: true expands the unrolled loops in Tessera (register tiles indexed by
   * constants in the CUDA), false leaves them as `#pragma unroll` loops for nvcc to expand.
   */
  readonly unrollExplicit: boolean;
  /**
   * Threads of a warp side by side along the columns (the rest along the rows): a warp covers a
   * `32 / warpCols × warpCols` patch of threads, which sets how many distinct A and B elements
   * its shared-memory reads touch. 0: the whole row of threads (row-major thread order).
   */
  readonly warpCols: number;
  /**
   * How the operand tiles get from global to shared memory (default "registers"):
   * - "registers": 128-bit loads into registers (`A_local`, `B_local`), then stores to shared
   *   memory; the pipelined loop's body is (A_local, A_shared, B_local, B_shared, the k1 loop).
   * - "async": `cp.async` straight into shared memory (sm_80+), no register stage: B with
   *   `vector`-wide copies, the transposed A with 4-byte copies (each scattered into its row of the
   *   transposed tile); the body is (A_shared, B_shared, the k1 loop) and `pipeline` should name
   *   an asynchronous stage (see `asyncPipeline`).
   */
  readonly fetch?: FetchMode;
  /**
   * Floats of padding after each row of the transposed A tile (`storageAlign(…, 32, aPad)`);
   * default 4, 0 leaves the rows unpadded (as dense as the 48 KiB of static shared memory needs
   * for four async stages or k chunks of 16 double-buffered).
   */
  readonly aPad?: number;
  /**
   * Which thread fetches which element of the A tile (default "thread-outer"): "thread-outer"
   * gives each thread whole rows of A (contiguous in global memory; its stores to the transposed
   * tile are a warp's consecutive columns, conflict-free with or without padding);
   * "thread-inner" gives a warp consecutive elements (coalesced global loads; its transposed
   * stores need `aPad` to avoid bank conflicts).
   */
  readonly aFetchOrder?: FetchOrder;
  /**
   * The same for the B tile (default "thread-outer"). With more than one vector per thread (k
   * chunks of 16: two float4 per thread) "thread-outer" puts a lane's vectors 32 bytes apart, a
   * 2-way conflict on the shared stores; "thread-inner" makes a warp's vectors consecutive. Through
   * registers, a "thread-inner" stage's elements are strided through the tile (rows t/32 and
   * t/32 + 4 of an 8×128 chunk for 128 threads); lowering indexes it by the thread's loops (compactBufferAllocation),
   * so it holds the thread's elements only (8 floats, not the 5×128 hull of its rows).
   */
  readonly bFetchOrder?: FetchOrder;
  /**
   * Lanes of a warp interleaved along the rows (default 1: none): 2 puts lanes 2n and 2n+1 in
   * adjacent thread rows of the same column, as CUTLASS's `RowMajorInterleaved<2>` lane layout,
   * so that lanes n and n^1 read the same B float4 and lanes n and n^2 the same A float4 — each
   * 128-bit shared load then runs in two half-warp phases instead of four. Needs `warpCols`.
   */
  readonly laneInterleave?: number;
  /**
   * Where a thread's `vthreadRows × vthreadCols` sub-tiles lie (default "block"): "block" strides
   * them `blockRows / vthreadRows` rows and `blockCols / vthreadCols` columns apart across the
   * whole block tile (TVM's vthread placement; a warp's threads cover a patch of each sub-tile);
   * "warp" gives each warp a contiguous tile and strides its lanes' sub-tiles within it, one lane
   * patch apart — CUTLASS's warp tile (e.g. 64×64 per warp: lanes 4×8, each 4×2 sub-tiles of 4×4
   * strided 16 rows and 32 columns apart). Needs `warpCols`.
   */
  readonly subTilePlacement?: SubTilePlacement;
  /**
   * Storage scope of the A and B tiles (default "shared"): "shared.dyn" puts them in dynamic
   * shared memory (merged into one allocation when lowered), which may exceed the 48 KiB of
   * static shared memory up to the target's opt-in limit (227 KiB on an H100): deeper pipelines,
   * padded tiles with four stages, k chunks of 16 with three.
   */
  readonly sharedScope?: "shared" | "shared.dyn";
}

export type SubTilePlacement = "block" | "warp";

export type FetchMode = "registers" | "async";
export type FetchOrder = "thread-outer" | "thread-inner";

/**
 * An asynchronous multi-stage pipeline for `fetch: "async"`: the cp.async copies of A and B
 * (stage 0) run `stages - 1` chunks ahead of the compute (stage `stages - 1`); shared memory
 * holds `stages` versions of each tile, and each iteration waits for the oldest group only.
 */
export function asyncPipeline(stages: number): PipelineAnnotation {
  if (!Number.isInteger(stages) || stages < 2) throw new RangeError(`asyncPipeline: stages must be an integer ≥ 2, got ${stages}`);
  return { stages: [0, 0, stages - 1], order: [0, 1, 2], asyncStages: [0] };
}

/**
 * Three stages: iteration k stores the registers loaded in iteration k-1 (chunk k+1) into one
 * shared buffer, loads chunk k+2 into the registers, then computes chunk k from the other buffer.
 * The shared writers come before their reader in the order, so shared memory gets two versions;
 * the register stage is read before it is written, so it keeps one: double-buffered shared memory
 * with register prefetch, one barrier per chunk.
 */
export const REGISTER_PREFETCH_PIPELINE: PipelineAnnotation = { stages: [0, 1, 0, 1, 2], order: [2, 0, 3, 1, 4] };

/**
 * 256×128 tiles (cuBLAS's SIMT SGEMM tile on sm_80/sm_90), k chunks of 8, 4×2 strided 4×4
 * sub-tiles per thread (128 accumulators), warps of 4×8 threads: 256 threads, one block per SM.
 * Loops within the unroll budget are left to nvcc as `#pragma unroll` (implicit): the same speed as
 * expanding them here (0.381 against 0.380 ms) for half the lowering time. Chosen on an H100 among
 * tile shapes, warp shapes, launch bounds and unroll budgets (docs/benchmarks/fast-gemm-variants.md):
 * 1.11× cuBLAS, where the 128×128 version with two blocks per SM is 1.15–1.18×.
 */
export const FAST_PARAMS: FastScheduleParams = {
  blockRows: 256,
  blockCols: 128,
  tileK: 8,
  threadRows: 4,
  threadCols: 4,
  vthreadRows: 4,
  vthreadCols: 2,
  vector: 4,
  pipeline: REGISTER_PREFETCH_PIPELINE,
  minBlocksPerSM: 1,
  unrollMaxStep: 2048,
  unrollExplicit: false,
  warpCols: 8,
};

/** Threads per block of a fast schedule. */
export function fastScheduleThreads(p: FastScheduleParams): number {
  return (p.blockRows / (p.vthreadRows * p.threadRows)) * (p.blockCols / (p.vthreadCols * p.threadCols));
}

/** Checks that the tile sizes fit the problem size `n` (M = N = K = n) and each other. */
export function checkFastParams(n: number, p: FastScheduleParams): void {
  const divides = (outer: number, inner: number, what: string) => {
    if (!Number.isInteger(outer / inner) || inner < 1) throw new RangeError(`${what}: ${inner} does not divide ${outer}`);
  };
  divides(n, p.blockRows, "blockRows");
  divides(n, p.blockCols, "blockCols");
  divides(n, p.tileK, "tileK");
  divides(p.blockRows, p.vthreadRows * p.threadRows, "vthreadRows × threadRows");
  divides(p.blockCols, p.vthreadCols * p.threadCols, "vthreadCols × threadCols");
  const threads = fastScheduleThreads(p);
  if (p.warpCols !== 0) {
    divides(32, p.warpCols, "warpCols (threads of a warp along the columns)");
    divides(p.blockCols / (p.vthreadCols * p.threadCols), p.warpCols, "warpCols (threads along the columns)");
    divides(p.blockRows / (p.vthreadRows * p.threadRows), 32 / p.warpCols, "32 / warpCols (threads along the rows)");
  }
  divides(p.blockRows * p.tileK, threads * p.vector, "threads × vector (A tile)");
  divides(p.blockCols * p.tileK, threads * p.vector, "threads × vector (B tile)");
  divides(p.tileK, p.vector, "vector (A rows are fetched along k)");
  divides(p.threadCols, p.vector, "vector (register reads of B)");
  divides(p.threadRows, p.vector, "vector (register reads of the transposed A)");
  const fetch = p.fetch ?? "registers";
  if (fetch !== "registers" && fetch !== "async") throw new RangeError(`fetch: expected "registers" or "async", got ${JSON.stringify(fetch)}`);
  for (const [name, order] of [
    ["aFetchOrder", p.aFetchOrder],
    ["bFetchOrder", p.bFetchOrder],
  ] as const) {
    if (order !== undefined && order !== "thread-outer" && order !== "thread-inner")
      throw new RangeError(`${name}: expected "thread-outer" or "thread-inner", got ${JSON.stringify(order)}`);
  }
  const aPad = p.aPad ?? 4;
  if (!Number.isInteger(aPad) || aPad < 0 || aPad >= 32) throw new RangeError(`aPad: expected an integer in [0, 32), got ${aPad}`);
  const interleave = p.laneInterleave ?? 1;
  if (interleave !== 1) {
    if (p.warpCols === 0) throw new RangeError("laneInterleave: needs warpCols (a warp of 32 / warpCols × warpCols threads)");
    divides(32 / p.warpCols, interleave, "laneInterleave (threads of a warp along the rows)");
  }
  const scope = p.sharedScope ?? "shared";
  if (scope !== "shared" && scope !== "shared.dyn") throw new RangeError(`sharedScope: expected "shared" or "shared.dyn", got ${JSON.stringify(scope)}`);
  const placement = p.subTilePlacement ?? "block";
  if (placement !== "block" && placement !== "warp") throw new RangeError(`subTilePlacement: expected "block" or "warp", got ${JSON.stringify(placement)}`);
  if (placement === "warp" && p.warpCols === 0) throw new RangeError('subTilePlacement "warp": needs warpCols (a warp of 32 / warpCols × warpCols threads)');
  if (fetch === "async" && p.pipeline !== null && p.pipeline.stages.length !== 3) {
    throw new RangeError(
      `pipeline: with fetch "async" the pipelined body has 3 statements (A_shared, B_shared, the k1 loop), got ${p.pipeline.stages.length} stages`,
    );
  }
  if (fetch === "registers" && p.pipeline !== null && p.pipeline.stages.length !== 5) {
    throw new RangeError(
      `pipeline: with fetch "registers" the pipelined body has 5 statements (A_local, A_shared, B_local, B_shared, the k1 loop), got ${p.pipeline.stages.length} stages`,
    );
  }
}

export function fastSchedule(n: number, params: FastScheduleParams = FAST_PARAMS): Schedule {
  checkFastParams(n, params);
  const p = params;
  const threads = fastScheduleThreads(p);
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm);
  const threadRows = p.blockRows / (p.vthreadRows * p.threadRows);
  const threadCols = p.blockCols / (p.vthreadCols * p.threadCols);
  let blocks: LoopRV;
  let thread: LoopRV;
  let k0: LoopRV;
  let k1: LoopRV;
  if (p.subTilePlacement === "warp") {
    // i = block · warp row · vthread · lane row · register row (and j alike): the vthread loops sit
    // between a warp's position and its lanes' in the index, outside the thread loop in the nest.
    const laneRows = 32 / p.warpCols;
    const [i0, iw, iv, il, i3] = sch.split(i, [null, threadRows / laneRows, p.vthreadRows, laneRows, p.threadRows]);
    const [j0, jw, jv, jl, j3] = sch.split(j, [null, threadCols / p.warpCols, p.vthreadCols, p.warpCols, p.threadCols]);
    [k0, k1] = sch.split(k, [null, p.tileK]);
    sch.reorder(i0, j0, iv, jv, iw, jw, il, jl, k0, k1, i3, j3);
    blocks = sch.fuse(i0, j0);
    sch.bind(blocks, "blockIdx.x");
    sch.bind(iv, "vthread.y");
    sch.bind(jv, "vthread.x");
    thread = fuseWarpLanes(sch, iw, jw, il, jl, p.laneInterleave ?? 1);
  } else {
    const [i0, i1, i2, i3] = sch.split(i, [null, p.vthreadRows, threadRows, p.threadRows]);
    const [j0, j1, j2, j3] = sch.split(j, [null, p.vthreadCols, threadCols, p.threadCols]);
    [k0, k1] = sch.split(k, [null, p.tileK]);
    sch.reorder(i0, j0, i1, j1, i2, j2, k0, k1, i3, j3);
    blocks = sch.fuse(i0, j0);
    sch.bind(blocks, "blockIdx.x");
    sch.bind(i1, "vthread.y");
    sch.bind(j1, "vthread.x");
    thread = fuseThreads(sch, i2, j2, p);
  }
  sch.bind(thread, "threadIdx.x");

  // Accumulators in registers, written back once per thread with the epilogue fused in.
  const writeBack = sch.cacheWrite(gemm, 0, "local");
  sch.reverseComputeAt(writeBack, thread, true);
  sch.reverseComputeInline(sch.getBlock("relu"));
  sch.reverseComputeInline(sch.getBlock("add"));
  sch.vectorize(sch.getLoops(writeBack).at(-1));

  // Shared tiles, fetched by all threads of the block: through registers with vector loads, or
  // with cp.async straight into shared memory.
  const aPad = p.aPad ?? 4;
  const async = p.fetch === "async";
  for (const operand of [0, 1] as const) {
    const shared = sch.cacheRead(gemm, operand, p.sharedScope ?? "shared");
    sch.computeAt(shared, k0, true);
    if (operand === 0) {
      sch.transformLayout(shared, ["write", 0], (row, col) => [col, row]);
      if (aPad > 0) sch.storageAlign(shared, 0, 0, 32, aPad);
    }
    const threadInner = (operand === 0 ? p.aFetchOrder : p.bFetchOrder) === "thread-inner";
    if (async) {
      // The transposed A is scattered one element per copy; B keeps its vector width.
      cooperativeFetch(sch, shared, threads, operand === 0 ? 1 : p.vector, threadInner);
    } else {
      const staged = sch.cacheRead(shared, 0, "local");
      sch.computeAt(staged, k0, true);
      for (const copy of [staged, shared]) cooperativeFetch(sch, copy, threads, p.vector, threadInner);
    }
    // Each thread's operand slices, read from shared memory with vector loads.
    const slice = sch.cacheRead(gemm, operand, "local");
    sch.computeAt(slice, k1, true);
    sch.vectorize(sch.getLoops(slice).at(-1));
  }

  sch.decomposeReduction(gemm, k0);
  if (p.pipeline !== null) {
    sch.annotate(k0, "software_pipeline_stage", [...p.pipeline.stages]);
    sch.annotate(k0, "software_pipeline_order", [...p.pipeline.order]);
    if (p.pipeline.asyncStages !== undefined) sch.annotate(k0, "software_pipeline_async_stages", [...p.pipeline.asyncStages]);
  }
  if (p.unrollMaxStep > 0) {
    // On the outermost loop, as MetaSchedule puts it: every inner loop within the budget unrolls.
    sch.annotate(blocks, "pragma_auto_unroll_max_step", p.unrollMaxStep);
    sch.annotate(blocks, "pragma_unroll_explicit", p.unrollExplicit ? 1 : 0);
  }
  if (p.minBlocksPerSM > 0) sch.annotate(blocks, "launch_bounds_min_blocks_per_sm", p.minBlocksPerSM);
  return sch;
}

/** The thread loop: rows × columns of threads, fused so that a warp covers a `32 / warpCols × warpCols` patch. */
function fuseThreads(sch: Schedule, rows: LoopRV, cols: LoopRV, p: FastScheduleParams): LoopRV {
  const threadCols = p.blockCols / (p.vthreadCols * p.threadCols);
  const interleave = p.laneInterleave ?? 1;
  if (p.warpCols === 0 || (p.warpCols >= threadCols && interleave === 1)) return sch.fuse(rows, cols);
  const [rowsOuter, rowsInner] = sch.split(rows, [null, 32 / p.warpCols]);
  const [colsOuter, colsInner] = sch.split(cols, [null, p.warpCols]);
  return fuseWarpLanes(sch, rowsOuter, colsOuter, rowsInner, colsInner, interleave);
}

/**
 * The thread loop from a warp's row and column (`warpRow`, `warpCol`) and its lanes' (`laneRow`,
 * `laneCol`): lane = laneRow · lanes per row + laneCol, or with `interleave` > 1
 * lane = (laneRow / interleave) · laneCols · interleave + laneCol · interleave + laneRow % interleave.
 */
function fuseWarpLanes(sch: Schedule, warpRow: LoopRV, warpCol: LoopRV, laneRow: LoopRV, laneCol: LoopRV, interleave: number): LoopRV {
  if (interleave === 1) {
    sch.reorder(warpRow, warpCol, laneRow, laneCol);
    return sch.fuse(warpRow, warpCol, laneRow, laneCol);
  }
  const [rowsHigh, rowsLow] = sch.split(laneRow, [null, interleave]);
  sch.reorder(warpRow, warpCol, rowsHigh, laneCol, rowsLow);
  return sch.fuse(warpRow, warpCol, rowsHigh, laneCol, rowsLow);
}

/**
 * Fuses a copy block's own loops, splits them over the block's threads with `vector`-wide accesses.
 * By default the thread loop is outermost, so that the elements one thread fetches are contiguous:
 * its register stage then compacts to those elements alone. `threadInner` puts it inside the
 * loop of rounds instead: a warp's accesses of one round are then consecutive elements.
 */
function cooperativeFetch(sch: Schedule, copy: BlockRV, threads: number, vector: number, threadInner = false): void {
  // The copy's loops: the block loop, the two vthread loops, the thread loop, k0, then its own.
  const own = sch.getLoops(copy).slice(5) as LoopRV[];
  const fused = own.length === 1 ? own[0]! : sch.fuse(...own);
  const [rounds, thread, lanes] = threadInner ? sch.split(fused, [null, threads, vector]) : sch.split(fused, [threads, null, vector]);
  sch.bind(threadInner ? thread : rounds, "threadIdx.x");
  sch.vectorize(lanes);
}
