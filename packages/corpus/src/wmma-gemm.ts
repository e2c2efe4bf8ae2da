/**
 * A tensor-core GEMM: `C = A·B` with float16 A, B and a float32 C (products and sums in float32),
 * tensorized with the WMMA m16n16k16 intrinsics as TVM stages them: 16-row k slices of A and B
 * fetched into shared memory by all threads, each warp loading its wmma.matrix_a / matrix_b
 * fragments from there, one wmma.accumulator fragment per warp filled with zero, updated by
 * mma_sync at every k step and stored to C. A thread block is 2×2 warps (a 32×32 tile of C).
 */
import { type PrimFunc, parsePrimFunc } from "@tessera/ir";
import { type BlockRV, Schedule, WMMA_INTRINSICS } from "@tessera/schedule";

/** Rows and columns of C per warp: one 16×16 WMMA fragment. */
const FRAGMENT = 16;
/** Warps per thread block along each of C's two dimensions. */
const WARPS_PER_DIM = 2;
const WARP_SIZE = 32;

/** The unscheduled function: one reduction block "C" over i, j, k. */
export function wmmaGemm(n: number): PrimFunc {
  const tile = FRAGMENT * WARPS_PER_DIM;
  if (!Number.isInteger(n) || n < tile || n % tile !== 0) throw new RangeError(`wmmaGemm: n must be a positive multiple of ${tile}, got ${n}`);
  return parsePrimFunc(`
@T.prim_func
def wmma_gemm(A: T.Buffer((${n}, ${n}), "float16"), B: T.Buffer((${n}, ${n}), "float16"), C: T.Buffer((${n}, ${n}), "float32")):
    for i, j, k in T.grid(${n}, ${n}, ${n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])
`);
}

/** Fetches the tile a shared cache holds with every thread of the block: rounds × warps × 32 lanes. */
function cooperativeFetch(sch: Schedule, shared: BlockRV): void {
  const loops = sch.getLoops(shared);
  const fused = sch.fuse(...loops.slice(-2));
  const [, warp, lane] = sch.split(fused, [null, WARPS_PER_DIM * WARPS_PER_DIM, WARP_SIZE]);
  sch.bind(warp, "threadIdx.y");
  sch.bind(lane, "threadIdx.x");
}

/** The WMMA schedule of `wmmaGemm(n)` (n a multiple of 32): 4 warps per block, 128 threads. */
export function wmmaGemmSchedule(n: number): Schedule {
  const W = WMMA_INTRINSICS;
  const sch = new Schedule(wmmaGemm(n));
  const c = sch.getBlock("C");
  const [i, j, k] = sch.getLoops(c);
  const [i0, i1, i2] = sch.split(i!, [null, WARPS_PER_DIM, FRAGMENT]);
  const [j0, j1, j2] = sch.split(j!, [null, WARPS_PER_DIM, FRAGMENT]);
  // k1 (extent 1) is where the fragments are loaded: one 16-wide k slice per warp.
  const [k0, k1, k2] = sch.split(k!, [null, 1, FRAGMENT]);
  sch.reorder(i0!, j0!, i1!, j1!, k0!, k1!, i2!, j2!, k2!);
  sch.bind(sch.fuse(i0!, j0!), "blockIdx.x");
  const warp = sch.fuse(i1!, j1!);
  sch.bind(warp, "threadIdx.y");
  const store = sch.cacheWrite(c, 0, "wmma.accumulator");
  sch.reverseComputeAt(store, warp);
  for (const operand of [0, 1]) {
    const shared = sch.cacheRead(c, operand, "shared");
    sch.computeAt(shared, k0!);
    cooperativeFetch(sch, shared);
  }
  const fragA = sch.cacheRead(c, 0, "wmma.matrix_a");
  const fragB = sch.cacheRead(c, 1, "wmma.matrix_b");
  sch.computeAt(fragA, k1!);
  sch.computeAt(fragB, k1!);
  const init = sch.decomposeReduction(c, k0!);
  const tileLoop = (b: BlockRV) => sch.getLoops(b).at(-2)!;
  sch.tensorize(tileLoop(init), W.fillF32);
  sch.tensorize(tileLoop(fragA), W.loadF16A);
  sch.tensorize(tileLoop(fragB), W.loadF16B);
  sch.tensorize(i2!, W.syncF16F16F32);
  sch.tensorize(tileLoop(store), W.storeF32Global);
  return sch;
}
