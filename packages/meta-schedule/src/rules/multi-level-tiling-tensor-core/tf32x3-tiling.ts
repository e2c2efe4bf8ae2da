/**
 * The mma.sync design space of a 3xTF32 GEMM (precision/fp32-precision.ts, "3xtf32"; beyond TVM):
 * the chunk block `W[ko, i, j] += (A_lo·B_hi + A_hi·B_lo) + A_hi·B_hi` (k within chunk ko) and the
 * main block `C[i, j] += W[ko, i, j]`, A's and B's hi and lo tf32 stages.
 *
 * The chunk block is tiled as the fp16 space tiles a GEMM: 16×16×8 tiles, blockized, i and j each
 * split into blocks, warps and tiles per warp (sampled perfect tiles); the k loop is the chunks (one
 * shared-memory stage each) and the 8-wide k steps within one. Each operand is fetched once a chunk
 * into a shared tile that its two stages (hi, lo) read: the stages become the fragment loads that
 * split as they load (`mma_load_tf32_*` and `_lo`). Per k step `mma_tf32x3_m16n8k8` (three m16n8k8
 * MMAs) sums into the chunk's warp accumulator, zeroed at each chunk; after the chunk the main warp
 * accumulator adds it (`mma_add_16x16_f32`: an ordinary float32 add, which the tensor core's adder is
 * not: docs/architecture/tf32x3.md); the main one is stored after the k loop (a cast epilogue fused
 * as for the fp16 groups). The k loop is software-pipelined, as sampled.
 */
import { type Block, type Buffer, type BufferLoad, type PrimExpr, structuralEqual } from "@tessera/ir";
import { type BlockRV, type LoopRV, MMA_INTRINSICS, type Schedule, mmaFragmentLayout, tf32FragmentLayout } from "@tessera/schedule";
import {
  AUTO_TENSORIZE,
  COOPERATIVE_FETCH,
  SHARED_SWIZZLE,
  SOFTWARE_PIPELINE,
  SOFTWARE_PIPELINE_ASYNC,
  THREAD_EXTENT_HIGH,
  THREAD_EXTENT_LOW,
  WARP_EXECUTION,
} from "../../schedule-utils/annotations.js";
import { fuseAll } from "../multi-level-tiling/tiling.js";
import { storeIntrinsicWithEpilogue } from "./cast-epilogue.js";
import { operandStage } from "./operand-stages.js";
import { tileLoop, uniform } from "./sampling-and-tiles.js";

const TILE = 16;
const K = 8;
const WARP_SIZE = 32;
const M = MMA_INTRINSICS;

/** The 3xTF32 store intrinsics: the plain float32 store, and gemm+ReLU+add's (no cast store: the accumulation is float32 throughout). */
const GROUP_STORES = { store: M.storeF32Global, reluAddStores: { float32: M.storeF32ReluAddGlobal } };

/** A matched 3xTF32 chunk block: its main block and the hi/lo stages of A and B. */
export interface Tf32x3Match {
  readonly main: BlockRV;
  readonly a: { readonly hi: BlockRV; readonly lo: BlockRV };
  readonly b: { readonly hi: BlockRV; readonly lo: BlockRV };
}

/** The options the space samples within (MultiLevelTilingTensorCoreOptions' own). */
export interface Tf32x3SpaceOptions {
  readonly maxTilesPerBlock: number;
  readonly maxTilesPerWarp: number;
  readonly softwarePipeline: boolean;
  readonly maxPipelineStages: number;
  readonly vectorLoadLens: readonly number[];
}

/**
 * `block` as a 3xTF32 chunk block (the module comment's form, extents of i and j multiples of 16 and
 * a chunk a multiple of 8) whose operands are hi and lo stages of one float32 buffer each and whose
 * only consumer adds its chunks; undefined otherwise.
 */
export function matchTf32x3(sch: Schedule, block: BlockRV): Tf32x3Match | undefined {
  const node = sch.get(block);
  const loads = chunkProductLoads(node);
  if (loads === undefined) return undefined;
  const stage = (load: BufferLoad) => operandStage(sch, block, load.buffer);
  const [aLo, bHi, aHi, bLo] = loads.map(stage);
  if (aLo?.part !== "residual" || aHi?.part !== "round" || bLo?.part !== "residual" || bHi?.part !== "round") return undefined;
  if (aLo.source !== aHi.source || bLo.source !== bHi.source) return undefined;
  const consumers = sch.getConsumers(block);
  if (consumers.length !== 1 || !addsChunks(sch.get(consumers[0]!), node.writes[0]!.buffer)) return undefined;
  return { main: consumers[0]!, a: { hi: aHi.block, lo: aLo.block }, b: { hi: bHi.block, lo: bLo.block } };
}

/**
 * The loads [A_lo, B_hi, A_hi, B_lo] of `W[ko, i, j] = W[ko, i, j] + ((A_lo·B_hi + A_hi·B_lo) + A_hi·B_hi)`
 * (iterators ko, i, j spatial and k reduce, A at [i, k'], B at [k', j] with one k' for all loads).
 */
function chunkProductLoads(block: Block): [BufferLoad, BufferLoad, BufferLoad, BufferLoad] | undefined {
  const { body, iterVars } = block;
  if (block.init === undefined || body.kind !== "BufferStore" || iterVars.length !== 4) return undefined;
  if (iterVars.map((iv) => iv.iterType).join() !== "spatial,spatial,spatial,reduce") return undefined;
  const extents = iterVars.map((iv) => (iv.dom.extent.kind === "IntImm" ? iv.dom.extent.value : 0));
  if (extents[1]! % TILE !== 0 || extents[2]! % TILE !== 0 || extents[3]! % K !== 0 || extents.some((e) => e <= 0)) return undefined;
  const [ko, i, j] = iterVars.map((iv) => iv.var);
  if (body.buffer.dtype !== "float32" || !(body.indices[0] === ko && body.indices[1] === i && body.indices[2] === j)) return undefined;
  const v = body.value;
  if (v.kind !== "Binary" || v.op !== "add" || v.a.kind !== "BufferLoad" || v.a.buffer !== body.buffer) return undefined;
  const sum = v.b;
  if (sum.kind !== "Binary" || sum.op !== "add" || sum.a.kind !== "Binary" || sum.a.op !== "add") return undefined;
  const [p0, p1, p2] = [sum.a.a, sum.a.b, sum.b].map(loadsOfProduct);
  if (p0 === undefined || p1 === undefined || p2 === undefined) return undefined;
  const [[aLo, bHi], [aHi, bLo], [aHi2, bHi2]] = [p0, p1, p2];
  if (aHi2.buffer !== aHi.buffer || bHi2.buffer !== bHi.buffer) return undefined;
  const k = aLo.indices[1];
  const as = [aLo, aHi, aHi2];
  const bs = [bHi, bLo, bHi2];
  if (k === undefined || as.some((a) => a.indices.length !== 2 || a.indices[0] !== i || !structuralEqual(a.indices[1]!, k))) return undefined;
  if (bs.some((b) => b.indices.length !== 2 || b.indices[1] !== j || !structuralEqual(b.indices[0]!, k))) return undefined;
  return [aLo, bHi, aHi, bLo];
}

function loadsOfProduct(e: PrimExpr): [BufferLoad, BufferLoad] | undefined {
  return e.kind === "Binary" && e.op === "mul" && e.a.kind === "BufferLoad" && e.b.kind === "BufferLoad" ? [e.a, e.b] : undefined;
}

/** Whether `block` is `C[i, j] += W[ko, i, j]` over the chunks ko of `chunks`. */
function addsChunks(block: Block, chunks: Buffer): boolean {
  const { body } = block;
  if (block.init === undefined || body.kind !== "BufferStore" || body.value.kind !== "Binary" || body.value.op !== "add") return false;
  const { a, b } = body.value;
  return a.kind === "BufferLoad" && a.buffer === body.buffer && b.kind === "BufferLoad" && b.buffer === chunks;
}

/**
 * The steps both 3xTF32 spaces begin with: the chunk block's i, j and k loops split into the
 * intrinsic's 16 × `jTile` × 8 tiles, the tile loops innermost, blockized. Returns the loops above
 * the tile (i and j outer, the chunk loop ko, the k step) and the tile block.
 */
export function blockizeTf32x3Tiles(
  sch: Schedule,
  block: BlockRV,
  jTile: Parameters<Schedule["split"]>[1][number],
): { iOuter: LoopRV; jOuter: LoopRV; ko: LoopRV; step: LoopRV; tile: BlockRV } {
  const [i, j, ko, ki] = sch.getLoops(block).slice(-4);
  const [iOuter, iTile] = sch.split(i!, [null, TILE]);
  const [jOuter, jInner] = sch.split(j!, [null, jTile]);
  const [step, kIn] = sch.split(ki!, [null, K]);
  sch.reorder(iOuter!, jOuter!, ko!, step!, iTile!, jInner!, kIn!);
  return { iOuter: iOuter!, jOuter: jOuter!, ko: ko!, step: step!, tile: sch.blockize(iTile!) };
}

/** Tiles the chunk block `block` of `m` as the module comment says. */
export function applyTf32x3Tiling(sch: Schedule, block: BlockRV, m: Tf32x3Match, o: Tf32x3SpaceOptions, maxThreads: number): void {
  const dynamicShared = o.softwarePipeline && o.maxPipelineStages > 2;
  const scope = dynamicShared ? "shared.dyn" : "shared";
  const { iOuter, jOuter, ko, step, tile } = blockizeTf32x3Tiles(sch, block, TILE);
  const spatial = (loop: LoopRV) => {
    const [blocks, perBlock] = sch.split(loop, sch.samplePerfectTile(loop, 2, o.maxTilesPerBlock));
    const [warps, perWarp] = sch.split(perBlock!, sch.samplePerfectTile(perBlock!, 2, o.maxTilesPerWarp));
    return [blocks!, warps!, perWarp!] as const;
  };
  const [iB, iW, iP] = spatial(iOuter);
  const [jB, jW, jP] = spatial(jOuter);
  sch.reorder(iB, jB, iW, jW, ko, step, iP, jP);
  sch.bind(fuseAll(sch, [iB, jB]), "blockIdx.x");
  const warp = fuseAll(sch, [iW, jW]);
  sch.bind(warp, "threadIdx.y");
  sch.annotate(tile, WARP_EXECUTION, 1);
  sch.annotate(tile, THREAD_EXTENT_LOW, WARP_SIZE);
  sch.annotate(tile, THREAD_EXTENT_HIGH, maxThreads);

  // Each operand's shared tile a chunk, read by its hi and lo stages: the fragment loads of a k step.
  const lens = o.vectorLoadLens.filter((v) => v <= 4);
  for (const { hi, lo } of [m.a, m.b]) {
    for (const stage of [hi, lo]) {
      sch.setScope(stage, 0, "warp");
      sch.computeAt(stage, step, true);
    }
    const shared = sch.cacheRead(hi, 0, scope, [hi, lo]);
    sch.computeAt(shared, ko, true);
    sch.annotate(shared, COOPERATIVE_FETCH, sch.sampleCategorical(lens, uniform(lens.length)));
    sch.annotate(shared, WARP_EXECUTION, 1);
    sch.annotate(shared, SHARED_SWIZZLE, 0);
  }

  // The chunk accumulator and the main one in warp registers: the main adds each chunk after it; its
  // write-back (with any cast epilogue) after the k loop.
  sch.setScope(tile, 0, "warp");
  const writeBack = sch.cacheWrite(m.main, 0, "warp");
  sch.reverseComputeAt(m.main, ko, true);
  sch.reverseComputeAt(writeBack, warp, true);
  const store = storeIntrinsicWithEpilogue(sch, writeBack, GROUP_STORES);
  const chunkInit = sch.decomposeReduction(tile, step);
  const mainInit = sch.decomposeReduction(m.main, ko);

  const loadTiles = [
    [m.a.hi, "A", dynamicShared ? M.loadTF32ADyn : M.loadTF32A],
    [m.a.lo, "A", dynamicShared ? M.loadTF32ALoDyn : M.loadTF32ALo],
    [m.b.hi, "B", dynamicShared ? M.loadTF32BDyn : M.loadTF32B],
    [m.b.lo, "B", dynamicShared ? M.loadTF32BLoDyn : M.loadTF32BLo],
  ] as const;
  const tiles: [LoopRV, string][] = loadTiles.map(([stage, operand, intrin]) => {
    const loop = operand === "A" ? tileLoop(sch, stage, TILE, K) : tileLoop(sch, stage, K, TILE);
    sch.transformLayout(stage, ["write", 0], tf32FragmentLayout(operand));
    return [loop, intrin];
  });
  const addTile = tileLoop(sch, m.main, TILE, TILE);
  const storeTile = tileLoop(sch, writeBack, TILE, TILE);
  const mainInitTile = tileLoop(sch, mainInit, TILE, TILE);
  sch.transformLayout(writeBack, ["read", 0], mmaFragmentLayout);
  const chunkRead = sch.get(m.main).reads.findIndex((r) => r.buffer === sch.get(block).writes[0]!.buffer);
  sch.transformLayout(m.main, ["read", chunkRead], (c, r, col) => [c!, ...mmaFragmentLayout(r!, col!)]);
  tiles.push(
    [sch.getLoops(sch.getChildBlocks(chunkInit)[0]!).at(-2)!, M.fillF32],
    [mainInitTile, M.fillF32],
    [addTile, M.addF32],
    [storeTile, store],
    [sch.getLoops(block).at(-3)!, M.mmaTF32x3],
  );
  for (const [loop, intrin] of tiles) sch.annotate(sch.blockize(loop), AUTO_TENSORIZE, intrin);

  if (o.softwarePipeline) {
    const lags = Array.from({ length: Math.max(2, o.maxPipelineStages) }, (_, v) => v);
    sch.annotate(ko, SOFTWARE_PIPELINE, sch.sampleCategorical(lags, uniform(lags.length)));
    sch.annotate(ko, SOFTWARE_PIPELINE_ASYNC, 1);
  }
}
