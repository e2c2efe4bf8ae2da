/**
 * A float32-accurate GEMM on tf32 tensor cores, 3xTF32 (docs/architecture/tf32x3.md): each float32
 * operand split into hi = tf32(x) and lo = tf32(x − hi), `C = Σ (lo·hi + hi·lo) + hi·hi`, summed as
 * a two-level reduction: the k axis in chunks, each chunk's sum in a short-lived accumulator
 * (zeroed per chunk) added into the main float32 accumulator with an ordinary rounded add. On the
 * GPU the tensor core's adder, which does not round as a float32 add does, then only ever sums one
 * chunk. The two levels are TensorIR's: the one-accumulator reduction with k split into chunks
 * (ko) and k within a chunk (ki), ko factored out by `rfactor` (as split-k does), the chunk buffer
 * `C_acc.rf` indexed by ko.
 *
 * The schedule is the tf32 GEMM's with the splits on the load path (four tf32 fragment loads from
 * the same shared tiles), `mma_tf32x3_m16n8k8` (three m16n8k8 MMAs per 8-column half) into the
 * chunk's warp accumulator, `mma_add_16x16_f32` adding it into the main one after each chunk, and a
 * store of the main one (with gemm+ReLU+add's epilogue).
 */
import { type PrimFunc, parsePrimFunc } from "@tessera/ir";
import { type BlockRV, type LoopRV, MMA_INTRINSICS, Schedule, mmaFragmentLayout } from "@tessera/schedule";
import { type MmaGemmParams, type MmaTiling, checkMmaTiling, splitTiles } from "./mma-gemm.js";
import { K_TILE, fetchTf32Operands, tensorizeTf32Loads } from "./tf32-gemm.js";

const TILE = 16;
/** float32 elements per 16-byte vector load. */
const VECTOR = 4;

/** Tiling of the 3xTF32 GEMM (8-wide k tiles, as the tf32 GEMM's) and its chunk of k. */
export interface Tf32x3GemmParams extends MmaGemmParams {
  /**
   * k per chunk: the sum of a chunk's products stays in the tensor cores' accumulator, then is
   * added into the main one. A multiple of 8 that divides the k stage (`kTiles`·8) or is a multiple
   * of it (the software pipeline then restarts at each chunk); the stage by default.
   */
  readonly chunk?: number;
}

/** 2×2 warps of one tile each (a 32×32 block tile), k stages (and chunks) of 16: small enough for the simulator at 128³. */
export const SMALL_TF32X3_PARAMS: Tf32x3GemmParams = { warps: [2, 2], tilesPerWarp: [1, 1], kTiles: 2, padShared: true };
/** 2×4 warps of 4×2 tiles (a 128×128 block tile), k stages (and chunks) of 16, double-buffered with cp.async. */
export const TF32X3_PARAMS: Tf32x3GemmParams = { warps: [2, 4], tilesPerWarp: [4, 2], kTiles: 2, padShared: true, pipelineStages: 2 };

/** The chunk of k a 3xTF32 schedule with `params` sums in the tensor cores' accumulator. */
export function tf32x3Chunk(params: Tf32x3GemmParams): number {
  return params.chunk ?? params.kTiles * K_TILE;
}

const split = (operand: "A" | "B", part: "hi" | "lo", n: number) => {
  const [r, c] = operand === "A" ? ["vi", "vk"] : ["vk", "vj"];
  const x = `${operand}[${r}, ${c}]`;
  return `    for ax0, ax1 in T.grid(${n}, ${n}):
        with T.block("${operand}_${part}"):
            ${r}, ${c} = T.axis.remap("SS", [ax0, ax1])
            ${operand}_${part}[${r}, ${c}] = ${part === "hi" ? `T.tf32_round(${x})` : `T.tf32_round(${x} - T.tf32_round(${x}))`}`;
};

/**
 * The 3xTF32 GEMM, summed in chunks of `chunk` k (`chunkTf32x3`): blocks "A_hi", "A_lo", "B_hi",
 * "B_lo" split the operands, "C_acc_rf" sums each chunk `C_acc.rf[ko] += (A_lo·B_hi + A_hi·B_lo) +
 * A_hi·B_hi` in float32, "C_acc" adds the chunks, "D" writes C = C_acc.
 */
export function tf32x3Gemm(n: number, chunk = tf32x3Chunk(SMALL_TF32X3_PARAMS)): PrimFunc {
  return chunked(tf32x3Func(n, false), chunk);
}

/** gemm+ReLU+add through 3xTF32: as `tf32x3Gemm`, but "D" writes `D = max(C_acc, 0) + C` (A, B, C, D). */
export function tf32x3GemmReluAdd(n: number, chunk = tf32x3Chunk(SMALL_TF32X3_PARAMS)): PrimFunc {
  return chunked(tf32x3Func(n, true), chunk);
}

function chunked(func: PrimFunc, chunk: number): PrimFunc {
  const sch = new Schedule(func);
  chunkTf32x3(sch, chunk);
  return sch.func;
}

/**
 * The 3xTF32 reduction "C_acc" as two levels: its k loop split into chunks (ko) of `chunk` and k
 * within a chunk (ki), ko factored out (`rfactor`, axis 0): the rfactor block "C_acc_rf" sums each
 * chunk into `C_acc.rf[ko, i, j]` (zeroed per chunk), "C_acc" adds the chunks over ko. Returns both.
 */
export function chunkTf32x3(sch: Schedule, chunk: number): { chunk: BlockRV; main: BlockRV } {
  const main = sch.getBlock("C_acc");
  const k = sch.getLoops(main).at(-1)!;
  const depth = sch.get(k).extent;
  if (depth.kind !== "IntImm" || !Number.isInteger(chunk) || chunk < 1 || depth.value % chunk !== 0)
    throw new RangeError(
      `chunkTf32x3: the chunk ${chunk} does not divide the k extent ${depth.kind === "IntImm" ? depth.value : "(not constant)"} of block C_acc`,
    );
  const [ko] = sch.split(k, [null, chunk]);
  return { chunk: sch.rfactor(ko, 0), main };
}

/**
 * The 3xTF32 GEMM with one accumulator over all k: "C_acc" adds per k `(A_lo·B_hi + A_hi·B_lo) +
 * A_hi·B_hi` (the small products first), "D" writes the result (and applies ReLU+add).
 */
export function tf32x3Func(n: number, reluAdd: boolean): PrimFunc {
  const what = reluAdd ? "tf32x3GemmReluAdd" : "tf32x3Gemm";
  if (!Number.isInteger(n) || n < TILE || n % TILE !== 0) throw new RangeError(`${what}: n must be a positive multiple of ${TILE}, got ${n}`);
  const buffers = ["A_hi", "A_lo", "B_hi", "B_lo", "C_acc"].map((b) => `    ${b} = T.alloc_buffer((${n}, ${n}))`).join("\n");
  const params = (reluAdd ? ["A", "B", "C", "D"] : ["A", "B", "C"]).map((p) => `${p}: T.Buffer((${n}, ${n}), "float32")`).join(", ");
  const out = reluAdd ? "D[vi, vj] = T.max(C_acc[vi, vj], T.float32(0)) + C[vi, vj]" : "C[vi, vj] = C_acc[vi, vj]";
  return parsePrimFunc(`
@T.prim_func
def ${reluAdd ? "tf32x3_gemm_relu_add" : "tf32x3_gemm"}(${params}):
${buffers}
${split("A", "hi", n)}
${split("A", "lo", n)}
${split("B", "hi", n)}
${split("B", "lo", n)}
    for i, j, k in T.grid(${n}, ${n}, ${n}):
        with T.block("C_acc"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C_acc[vi, vj] = T.float32(0)
            C_acc[vi, vj] = C_acc[vi, vj] + (A_lo[vi, vk] * B_hi[vk, vj] + A_hi[vi, vk] * B_lo[vk, vj] + A_hi[vi, vk] * B_hi[vk, vj])
    for i, j in T.grid(${n}, ${n}):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            ${out}
`);
}

/** The mma.sync 3xTF32 schedule of `tf32x3Gemm(n, tf32x3Chunk(params))`: warps[0]×warps[1] warps per block. */
export function tf32x3GemmSchedule(n: number, params: Tf32x3GemmParams = SMALL_TF32X3_PARAMS): Schedule {
  checkTf32x3Tiling("tf32x3GemmSchedule", n, params);
  return scheduleTf32x3(tf32x3Func(n, false), params, MMA_INTRINSICS.storeF32Global);
}

/** The 3xTF32 schedule of `tf32x3GemmReluAdd(n, tf32x3Chunk(params))`: the GEMM's, the epilogue in the store of each tile. */
export function tf32x3GemmReluAddSchedule(n: number, params: Tf32x3GemmParams = SMALL_TF32X3_PARAMS): Schedule {
  checkTf32x3Tiling("tf32x3GemmReluAddSchedule", n, params);
  return scheduleTf32x3(tf32x3Func(n, true), params, MMA_INTRINSICS.storeF32ReluAddGlobal);
}

function checkTf32x3Tiling(what: string, n: number, params: Tf32x3GemmParams): void {
  checkMmaTiling(what, n, params, K_TILE, VECTOR);
  const [chunk, stage] = [tf32x3Chunk(params), params.kTiles * K_TILE];
  if (!Number.isInteger(chunk) || chunk < K_TILE || chunk % K_TILE !== 0 || (stage % chunk !== 0 && chunk % stage !== 0) || n % chunk !== 0)
    throw new RangeError(
      `${what}: the chunk ${chunk} must be a multiple of ${K_TILE} that divides or is a multiple of the k stage of ${stage} (kTiles ${params.kTiles}), and divides n = ${n}`,
    );
}

function scheduleTf32x3(func: PrimFunc, params: Tf32x3GemmParams, storeIntrin: string): Schedule {
  const M = MMA_INTRINSICS;
  const sch = new Schedule(func);
  const { chunk: c, main } = chunkTf32x3(sch, tf32x3Chunk(params));
  const t = tileChunks(sch, c, params);
  fetchTf32Operands(sch, t, params, { A: ["A_hi", "A_lo"], B: ["B_hi", "B_lo"] });

  // The chunk accumulator and the main one in warp registers; the main accumulation after each
  // chunk, the store (with any epilogue) after the k loop.
  sch.setScope(t.tile, 0, "warp");
  sch.reverseComputeAt(main, t.chunkLoop);
  sch.setScope(main, 0, "warp");
  const store = sch.getBlock("D");
  sch.reverseComputeAt(store, t.warp);
  const addTile = splitTiles(sch, main);
  const storeTile = splitTiles(sch, store);
  sch.decomposeReduction(t.tile, t.inChunk);
  const mainInit = sch.decomposeReduction(main, t.outerK);
  if (params.pipelineStages === 2) {
    sch.annotate(t.k0, "software_pipeline_stage", [0, 0, 1]);
    sch.annotate(t.k0, "software_pipeline_order", [0, 1, 2]);
    sch.annotate(t.k0, "software_pipeline_async_stages", [0]);
  }

  sch.transformLayout(store, ["read", 0], mmaFragmentLayout);
  sch.transformLayout(main, ["read", 1], (ko, i, j) => [ko!, ...mmaFragmentLayout(i!, j!)]);
  tensorizeTf32Loads(sch, [
    ["A_hi", M.loadTF32A],
    ["A_lo", M.loadTF32ALo],
    ["B_hi", M.loadTF32B],
    ["B_lo", M.loadTF32BLo],
  ]);
  sch.tensorize(sch.getLoops(c).at(-3)!, M.mmaTF32x3);
  // The chunk's zero fill: the block inside the blockized tile's init.
  sch.tensorize(sch.getLoops(sch.getBlock("C_acc_rf_init")).at(-2)!, M.fillF32);
  sch.tensorize(sch.getLoops(mainInit).at(-2)!, M.fillF32);
  sch.tensorize(addTile, M.addF32);
  sch.tensorize(storeTile, storeIntrin);
  return sch;
}

/** The loops of the tiled chunk block: the GEMM's (`MmaTiling`: k0 the k stages, k1 the k tiles of a stage) and the chunks. */
interface ChunkTiling extends MmaTiling {
  /** The loop over chunks (the main accumulation's), and the outermost loop within a chunk (where the chunk is zeroed). */
  readonly chunkLoop: LoopRV;
  readonly inChunk: LoopRV;
  /** The outermost k loop (where the main accumulator is zeroed). */
  readonly outerK: LoopRV;
}

/**
 * Tiles the chunk block "C_acc_rf" (loops i, j, ko, ki) as `tileForMma` tiles a GEMM: 16×16×8 tiles,
 * blockized, bound to blocks and warps; the k stages of shared memory and the chunks nest either
 * way: a stage of several chunks (the chunks ko split into stages k0 and the chunks of a stage),
 * or a chunk of several stages (the k within a chunk split into stages k0 and their k tiles k1,
 * the software pipeline then restarting at each chunk).
 */
function tileChunks(sch: Schedule, c: BlockRV, params: Tf32x3GemmParams): ChunkTiling {
  const [tilesPerChunk, tilesPerStage] = [tf32x3Chunk(params) / K_TILE, params.kTiles];
  const [i, j, ko, ki] = sch.getLoops(c);
  const [iOuter, iTile] = sch.split(i!, [null, TILE]);
  const [jOuter, jTile] = sch.split(j!, [null, TILE]);
  const [kTiles, kIn] = sch.split(ki!, [tilesPerChunk, K_TILE]);
  sch.reorder(iOuter!, jOuter!, ko!, kTiles!, iTile!, jTile!, kIn!);
  const tile = sch.blockize(iTile!);

  const [i0, i1, i2] = sch.split(iOuter!, [null, params.warps[0], params.tilesPerWarp[0]]);
  const [j0, j1, j2] = sch.split(jOuter!, [null, params.warps[1], params.tilesPerWarp[1]]);
  let k: { k0: LoopRV; k1: LoopRV; chunkLoop: LoopRV; inChunk: LoopRV; outerK: LoopRV };
  if (tilesPerChunk <= tilesPerStage) {
    const [k0, chunkLoop] = sch.split(ko!, [null, tilesPerStage / tilesPerChunk]);
    sch.reorder(i0!, j0!, i1!, j1!, k0!, chunkLoop!, kTiles!, i2!, j2!);
    k = { k0: k0!, k1: kTiles!, chunkLoop: chunkLoop!, inChunk: kTiles!, outerK: k0! };
  } else {
    const [k0, k1] = sch.split(kTiles!, [null, tilesPerStage]);
    sch.reorder(i0!, j0!, i1!, j1!, ko!, k0!, k1!, i2!, j2!);
    k = { k0: k0!, k1: k1!, chunkLoop: ko!, inChunk: k0!, outerK: ko! };
  }
  sch.bind(sch.fuse(i0!, j0!), "blockIdx.x");
  const warp = sch.fuse(i1!, j1!);
  sch.bind(warp, "threadIdx.y");
  return { tile, ...k, warp, warps: params.warps[0] * params.warps[1] };
}
