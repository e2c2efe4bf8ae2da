/**
 * A tensor-core GEMM: `C = A·B` with float16 A, B and a float32 C (products and sums in float32),
 * tensorized with the WMMA m16n16k16 intrinsics as TVM stages them: 16-row k slices of A and B
 * fetched into shared memory by all threads, each warp loading its wmma.matrix_a / matrix_b
 * fragments from there, one wmma.accumulator fragment per warp filled with zero, updated by
 * mma_sync at every k step and stored to C. `WmmaGemmParams` choose the warps per block, the
 * fragments per warp and the k fragments per shared tile.
 */
import { type PrimFunc, cast, compute, createPrimFunc, mul, placeholder, reduceAxis, reduceSum } from "@tessera/ir";
import { type BlockRV, Schedule, WMMA_INTRINSICS } from "@tessera/schedule";

const FRAGMENT = 16;
const WARP_SIZE = 32;

/** How the WMMA GEMM is tiled: warps per block and 16×16 fragments per warp along i and j, 16-wide k fragments per shared tile. */
export interface WmmaGemmParams {
  readonly warps: readonly [i: number, j: number];
  readonly fragmentsPerWarp: readonly [i: number, j: number];
  readonly kFragments: number;
}

/** 2×2 warps of one fragment each (a 32×32 tile of C per block), k tiles of 16. */
export const SMALL_WMMA_PARAMS: WmmaGemmParams = { warps: [2, 2], fragmentsPerWarp: [1, 1], kFragments: 1 };
/** 2×4 warps of 2×2 fragments (a 64×128 tile of C per block), k tiles of 32. */
export const WMMA_PARAMS: WmmaGemmParams = { warps: [2, 4], fragmentsPerWarp: [2, 2], kFragments: 2 };

/** The unscheduled function: one reduction block "C" over i, j, k. */
export function wmmaGemm(n: number): PrimFunc {
  if (!Number.isInteger(n) || n < FRAGMENT || n % FRAGMENT !== 0) throw new RangeError(`wmmaGemm: n must be a positive multiple of ${FRAGMENT}, got ${n}`);
  const A = placeholder([n, n], "float16", "A");
  const B = placeholder([n, n], "float16", "B");
  const k = reduceAxis([0, n], "k");
  const C = compute([n, n], (i, j) => reduceSum(mul(cast("float32", A.at(i, k)), cast("float32", B.at(k, j))), k), "C");
  return createPrimFunc([A, B, C], { name: "wmma_gemm" });
}

/** Fetches the tile a shared cache holds with every thread of the block: rounds × warps × 32 lanes. */
function cooperativeFetch(sch: Schedule, shared: BlockRV, warps: number): void {
  const loops = sch.getLoops(shared);
  const fused = sch.fuse(...loops.slice(-2));
  const [, warp, lane] = sch.split(fused, [null, warps, WARP_SIZE]);
  sch.bind(warp!, "threadIdx.y");
  sch.bind(lane!, "threadIdx.x");
}

/** Splits a block's two innermost loops into fragments: [f0, f1, 16, 16] (its tile loop is then second to last). */
function fragmentTiles(sch: Schedule, b: BlockRV): void {
  const [r, c] = sch.getLoops(b).slice(-2);
  const [r0, r1] = sch.split(r!, [null, FRAGMENT]);
  const [c0, c1] = sch.split(c!, [null, FRAGMENT]);
  sch.reorder(r0!, c0!, r1!, c1!);
}

function checkParams(n: number, p: WmmaGemmParams): void {
  const [wi, wj] = p.warps;
  const [fi, fj] = p.fragmentsPerWarp;
  const all = [wi, wj, fi, fj, p.kFragments];
  if (all.some((x) => !Number.isInteger(x) || x < 1))
    throw new RangeError(`wmmaGemmSchedule: warps, fragments and k fragments must be positive integers, got ${JSON.stringify(p)}`);
  const [ti, tj, tk] = [wi * fi * FRAGMENT, wj * fj * FRAGMENT, p.kFragments * FRAGMENT];
  if (n % ti !== 0 || n % tj !== 0 || n % tk !== 0) throw new RangeError(`wmmaGemmSchedule: n = ${n} is not a multiple of the block tile ${ti}×${tj}×${tk}`);
}

/** The WMMA schedule of `wmmaGemm(n)`: warps[0]×warps[1] warps per block (32 threads each). */
export function wmmaGemmSchedule(n: number, params: WmmaGemmParams = SMALL_WMMA_PARAMS): Schedule {
  checkParams(n, params);
  const W = WMMA_INTRINSICS;
  const warps = params.warps[0] * params.warps[1];
  const sch = new Schedule(wmmaGemm(n));
  const c = sch.getBlock("C");
  const [i, j, k] = sch.getLoops(c);
  const [i0, i1, i2, i3] = sch.split(i!, [null, params.warps[0], params.fragmentsPerWarp[0], FRAGMENT]);
  const [j0, j1, j2, j3] = sch.split(j!, [null, params.warps[1], params.fragmentsPerWarp[1], FRAGMENT]);
  // k1 walks the k fragments of a shared tile; the fragments are loaded under it.
  const [k0, k1, k2] = sch.split(k!, [null, params.kFragments, FRAGMENT]);
  sch.reorder(i0!, j0!, i1!, j1!, k0!, k1!, i2!, j2!, i3!, j3!, k2!);
  sch.bind(sch.fuse(i0!, j0!), "blockIdx.x");
  const warp = sch.fuse(i1!, j1!);
  sch.bind(warp, "threadIdx.y");
  const store = sch.cacheWrite(c, 0, "wmma.accumulator");
  sch.reverseComputeAt(store, warp);
  fragmentTiles(sch, store);
  for (const operand of [0, 1]) {
    const shared = sch.cacheRead(c, operand, "shared");
    sch.computeAt(shared, k0!);
    cooperativeFetch(sch, shared, warps);
  }
  const fragA = sch.cacheRead(c, 0, "wmma.matrix_a");
  const fragB = sch.cacheRead(c, 1, "wmma.matrix_b");
  sch.computeAt(fragA, k1!);
  sch.computeAt(fragB, k1!);
  fragmentTiles(sch, fragA);
  fragmentTiles(sch, fragB);
  const init = sch.decomposeReduction(c, k0!);
  const tileLoop = (b: BlockRV) => sch.getLoops(b).at(-2)!;
  sch.tensorize(tileLoop(init), W.fillF32);
  sch.tensorize(tileLoop(fragA), W.loadF16A);
  sch.tensorize(tileLoop(fragB), W.loadF16B);
  sch.tensorize(i3!, W.syncF16F16F32);
  sch.tensorize(tileLoop(store), W.storeF32Global);
  return sch;
}
