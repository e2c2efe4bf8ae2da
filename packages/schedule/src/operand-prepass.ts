/**
 * Layout-rewrite pre-passes (TVM's layout rewrite, done here as an explicit stage kernel): a stage
 * block that computes an operand elementwise (e.g. "B_tf32" = tf32(B), or 3xTF32's "B_hi"/"B_lo")
 * stays at the root of the function and becomes a kernel of its own that writes its whole output
 * to a global workspace before the GEMM runs, in the layout the GEMM's tensor intrinsic reads:
 * - `rowMajorPrePass`: the stage's layout kept (A[i, k] is already K-major), 4 elements a thread;
 * - `transposingPrePass`: the stage's output stored transposed (`transformLayout` (r, c) → (c, r):
 *   B[k, j] becomes Bᵀ[j, k], K-major), as a tiled transpose through shared memory so that both the
 *   reads of the input and the writes of the workspace are coalesced: a block moves a 32×32 tile,
 *   reading its rows into a shared tile padded by one word a row (the column reads are then
 *   conflict-free) and writing its columns as the rows of the output.
 * - `transposingPrePasses`: several stages of one input (3xTF32's "B_hi" and "B_lo") as one such
 *   kernel: the input's shared tile is the producer, tiled and bound to the blocks, and each stage
 *   is computed under its tile loop (reverse_compute_at), so the input is read once for all.
 * The pre-pass reads and writes each element once; a GEMM whose operand is a constant weight could
 * run it once ahead (the benchmarks count it in every run).
 */
import type { Schedule } from "./schedule.js";
import type { BlockRV } from "./handles.js";

/** Threads of a row-major pre-pass block. */
const ELEMENTWISE_THREADS = 256;
const ELEMENTS_PER_THREAD = 4;
/** The transpose's tile (rows and columns) and its threads along the rows (threadIdx.y). */
const TILE = 32;
const TILE_ROWS_THREADS = 8;

/** Binds the root stage block `block` (loops r, c) as its own kernel, in row-major order, 4 elements per thread a block apart. */
export function rowMajorPrePass(sch: Schedule, block: BlockRV): void {
  const fused = sch.fuse(...sch.getLoops(block));
  // Each thread rounds ELEMENTS_PER_THREAD elements a block-width apart: coalesced, several loads in flight.
  const [bx, , tx] = sch.split(fused, [null, ELEMENTS_PER_THREAD, ELEMENTWISE_THREADS]);
  sch.bind(bx!, "blockIdx.x");
  sch.bind(tx!, "threadIdx.x");
}

/**
 * The root stage blocks `blocks` (each reads the same input, read 0, elementwise over its shape:
 * 3xTF32's "A_hi" and "A_lo") as one row-major kernel: each thread loads its elements of the input
 * once into registers (a local cache read, bound as `rowMajorPrePass` binds a stage) and computes
 * every stage from them.
 */
export function rowMajorPrePasses(sch: Schedule, blocks: readonly BlockRV[]): void {
  const local = sch.cacheRead(blocks[0]!, 0, "local", blocks);
  rowMajorPrePass(sch, local);
  const innermost = sch.getLoops(local).at(-1)!;
  for (const b of blocks) sch.reverseComputeAt(b, innermost);
}

/**
 * Stores the root stage block `block`'s output (loops r, c over an output [r, c]) transposed, as
 * [c, r], and binds it as its own kernel: a tiled transpose through a padded shared tile of its
 * input (read 0). Both extents must be multiples of 32.
 */
export function transposingPrePass(sch: Schedule, block: BlockRV): void {
  sch.transformLayout(block, ["write", 0], (r, c) => [c!, r!]);
  const [r, c] = sch.getLoops(block);
  const [r0, r1] = sch.split(r!, [null, TILE]);
  const [c0, c1] = sch.split(c!, [null, TILE]);
  // A thread per output row element: r1 (the output's contiguous axis) on threadIdx.x.
  const [c1Outer, c1Inner] = sch.split(c1!, [null, TILE_ROWS_THREADS]);
  sch.reorder(c0!, r0!, c1Inner!, c1Outer!, r1!);
  const tile = sch.fuse(c0!, r0!);
  sch.bind(tile, "blockIdx.x");
  sch.bind(c1Inner!, "threadIdx.y");
  sch.bind(r1!, "threadIdx.x");
  // The input tile in shared memory, read along its rows (c contiguous: coalesced) by the same threads.
  const shared = sch.cacheRead(block, 0, "shared", [block]);
  sch.computeAt(shared, tile);
  const [, ty, tx] = sch.split(sch.fuse(...sch.getLoops(shared).slice(-2)), [null, TILE_ROWS_THREADS, TILE]);
  sch.bind(ty!, "threadIdx.y");
  sch.bind(tx!, "threadIdx.x");
  sch.storageAlign(shared, 0, 0, TILE, 1);
}

/**
 * Stores the root stage blocks `blocks` (each reads the same input, read 0, with loops r, c over an
 * output [r, c]) transposed, as [c, r], in one kernel: the input's padded shared tile (one read of
 * the input) is tiled 32×32 and bound to the blocks, each stage computed under the tile loop and
 * bound to the threads as in `transposingPrePass`. Both extents must be multiples of 32.
 */
export function transposingPrePasses(sch: Schedule, blocks: readonly BlockRV[]): void {
  for (const b of blocks) sch.transformLayout(b, ["write", 0], (r, c) => [c!, r!]);
  const shared = sch.cacheRead(blocks[0]!, 0, "shared", blocks);
  const [r, c] = sch.getLoops(shared);
  const [r0, r1] = sch.split(r!, [null, TILE]);
  const [c0, c1] = sch.split(c!, [null, TILE]);
  sch.reorder(c0!, r0!, r1!, c1!);
  const tile = sch.fuse(c0!, r0!);
  sch.bind(tile, "blockIdx.x");
  // The input's rows, c contiguous: coalesced reads.
  const [, ty, tx] = sch.split(sch.fuse(r1!, c1!), [null, TILE_ROWS_THREADS, TILE]);
  sch.bind(ty!, "threadIdx.y");
  sch.bind(tx!, "threadIdx.x");
  sch.storageAlign(shared, 0, 0, TILE, 1);
  for (const b of blocks) {
    sch.reverseComputeAt(b, tile);
    const [br, bc] = sch.getLoops(b).slice(-2);
    // A thread per output row element: r (the output's contiguous axis) on threadIdx.x.
    const [cOuter, cInner] = sch.split(bc!, [null, TILE_ROWS_THREADS]);
    sch.reorder(cInner!, cOuter!, br!);
    sch.bind(cInner!, "threadIdx.y");
    sch.bind(br!, "threadIdx.x");
  }
}
