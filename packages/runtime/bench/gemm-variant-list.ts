/**
 * The variants `bench:gemm-variants` measures: named overrides of the corpus's FAST_PARAMS
 * (packages/corpus/src/gemm-relu-add-fast.ts), built in or read from a JSON file:
 *
 *   [{ "name": "async4", "description": "…", "params": { "fetch": "async", "pipeline": { "async": 4 }, "aPad": 0 } }, …]
 *
 * (or `{ "variants": [...] }`). `params` takes every FastScheduleParams field; `pipeline` is
 * `null`, an annotation `{ "stages": [...], "order": [...], "asyncStages": [...] }`,
 * `"register-prefetch"` (FAST_PARAMS's) or `{ "async": S }` (`asyncPipeline(S)`).
 */
import { readFileSync } from "node:fs";
import { FAST_PARAMS, type FastScheduleParams, type PipelineAnnotation, REGISTER_PREFETCH_PIPELINE, asyncPipeline } from "@tessera/corpus";
import { z } from "zod";

export interface GemmVariant {
  /** A short identifier, also a valid file name. */
  readonly name: string;
  readonly description: string;
  /** What changes from FAST_PARAMS. */
  readonly params: Partial<FastScheduleParams>;
}

/** The variant's full parameters. */
export function variantParams(v: GemmVariant): FastScheduleParams {
  return { ...FAST_PARAMS, ...v.params };
}

/** Async pipeline with the copies ordered after the compute: one barrier per chunk (the wait's). */
function asyncLate(stages: number): PipelineAnnotation {
  return { ...asyncPipeline(stages), order: [1, 2, 0] };
}

/** The register-prefetch pipeline with the global loads issued after the compute (fewer registers live across it). */
const REGISTER_PREFETCH_LATE_LOADS: PipelineAnnotation = { stages: [0, 1, 0, 1, 2], order: [3, 0, 4, 1, 2] };

/** 128×128 tiles, 128 threads of 4×2 sub-tiles of 4×4 (128 accumulators), warps of 4×8, two blocks per SM. */
const TWO_BLOCKS: Partial<FastScheduleParams> = { blockRows: 128, blockCols: 128, vthreadRows: 4, vthreadCols: 2, warpCols: 8, minBlocksPerSM: 2 };

/** 256×128 tiles of 512 threads, each 2×2 sub-tiles of 4×4 placed in 32×64 warp tiles, lanes 4×8 interleaved (the issue's CUTLASS warp shape). */
const WARP_32X64: Partial<FastScheduleParams> = { vthreadRows: 2, vthreadCols: 2, warpCols: 8, subTilePlacement: "warp", laneInterleave: 2 };

const v = (name: string, description: string, params: Partial<FastScheduleParams>): GemmVariant => ({ name, description, params });

/**
 * Around FAST_PARAMS (256×128×8, 4×2 vthreads of 4×4, warps of 4×8, register prefetch, padded
 * transposed A): lane interleaving, cp.async multi-stage pipelines (as cuBLAS's
 * cutlass_80_simt_sgemm_256x128_8x4: 4 stages of k 8), unpadded tiles, k chunks of 16, warp
 * shapes, copy order, unrolling, dynamic shared memory beyond 48 KiB (deeper pipelines, padded
 * coalesced A fetches, k chunks of 16).
 */
export const BUILTIN_VARIANTS: readonly GemmVariant[] = [
  v("fast", "FAST_PARAMS: register prefetch, padded transposed A, warps of 4×8", {}),
  v("pad0", "A tile unpadded (conflict-free anyway: each thread stores a column)", { aPad: 0 }),
  v("il2", "lanes interleaved in row pairs (CUTLASS RowMajorInterleaved<2>): 2 phases per LDS.128", { laneInterleave: 2 }),
  v("il2-pad0", "il2, A unpadded", { laneInterleave: 2, aPad: 0 }),
  v("w8x4", "warps of 8×4 threads", { warpCols: 4 }),
  v("w8x4-il2", "warps of 8×4, lanes interleaved in row pairs", { warpCols: 4, laneInterleave: 2 }),
  v("warp64", "CUTLASS warp tiles: each warp 64×64, lanes 4×8 with 4×2 sub-tiles of 4×4 strided 16 rows / 32 columns", { subTilePlacement: "warp" }),
  v("warp64-il2", "warp64 + lanes interleaved (CUTLASS's SIMT lane layout)", { subTilePlacement: "warp", laneInterleave: 2 }),
  v("late-loads", "register prefetch with the global loads after the compute", { pipeline: REGISTER_PREFETCH_LATE_LOADS }),
  v("il2-late-loads", "il2 + global loads after the compute", { laneInterleave: 2, pipeline: REGISTER_PREFETCH_LATE_LOADS }),
  v("explicit-il2", "il2, unrolled loops expanded by Tessera", { laneInterleave: 2, unrollExplicit: true }),
  v("async3", "cp.async, 3 stages (A as 4-byte copies), padded A", { fetch: "async", pipeline: asyncPipeline(3) }),
  v("async3-late", "cp.async, 3 stages, copies after the compute (one barrier per chunk)", { fetch: "async", pipeline: asyncLate(3) }),
  v("async3-il2", "async3 + lanes interleaved", { fetch: "async", pipeline: asyncPipeline(3), laneInterleave: 2 }),
  v("async3-late-il2", "async3-late + lanes interleaved", { fetch: "async", pipeline: asyncLate(3), laneInterleave: 2 }),
  v("async3-inner", "async3, A fetched by consecutive threads (coalesced; padded against store conflicts)", {
    fetch: "async",
    pipeline: asyncPipeline(3),
    aFetchOrder: "thread-inner",
  }),
  v("async3-late-inner-il2", "async3-late, A coalesced, lanes interleaved", {
    fetch: "async",
    pipeline: asyncLate(3),
    aFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
  v("async4", "cp.async, 4 stages, A unpadded (48 KiB): cuBLAS's 8x4", { fetch: "async", pipeline: asyncPipeline(4), aPad: 0 }),
  v("async4-late", "async4, copies after the compute", { fetch: "async", pipeline: asyncLate(4), aPad: 0 }),
  v("async4-il2", "async4 + lanes interleaved", { fetch: "async", pipeline: asyncPipeline(4), aPad: 0, laneInterleave: 2 }),
  v("async4-late-il2", "async4-late + lanes interleaved", { fetch: "async", pipeline: asyncLate(4), aPad: 0, laneInterleave: 2 }),
  v("async4-warp64-il2", "async4 + CUTLASS warp tiles and lane layout: cuBLAS's kernel's structure", {
    fetch: "async",
    pipeline: asyncPipeline(4),
    aPad: 0,
    subTilePlacement: "warp",
    laneInterleave: 2,
  }),
  v("async4-w8x4-il2", "async4, warps of 8×4, lanes interleaved", { fetch: "async", pipeline: asyncPipeline(4), aPad: 0, warpCols: 4, laneInterleave: 2 }),
  v("dyn-async4-inner", "dynamic shared memory: cp.async 4 stages, A padded and fetched by consecutive threads (coalesced, 49.6 KB)", {
    sharedScope: "shared.dyn",
    fetch: "async",
    pipeline: asyncPipeline(4),
    aFetchOrder: "thread-inner",
  }),
  v("dyn-async4-inner-il2", "dyn-async4-inner + lanes interleaved", {
    sharedScope: "shared.dyn",
    fetch: "async",
    pipeline: asyncPipeline(4),
    aFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
  v("dyn-async4-late-inner-il2", "dyn-async4-inner-il2 with the copies after the compute", {
    sharedScope: "shared.dyn",
    fetch: "async",
    pipeline: asyncLate(4),
    aFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
  v("dyn-async6-inner-il2", "dynamic shared memory: 6 async stages, A coalesced, lanes interleaved (74 KB)", {
    sharedScope: "shared.dyn",
    fetch: "async",
    pipeline: asyncPipeline(6),
    aFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
  v("dyn-k16-async3-inner-il2", "dynamic shared memory: k chunks of 16, 3 async stages, A and B fetched by consecutive threads, lanes interleaved (74 KB)", {
    sharedScope: "shared.dyn",
    tileK: 16,
    fetch: "async",
    pipeline: asyncPipeline(3),
    aFetchOrder: "thread-inner",
    bFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
  v(
    "dyn-k16-async3-il2",
    "dynamic shared memory: k chunks of 16, 3 async stages, A rows per thread (conflict-free unpadded), B by consecutive threads, lanes interleaved",
    {
      sharedScope: "shared.dyn",
      tileK: 16,
      fetch: "async",
      pipeline: asyncPipeline(3),
      aPad: 0,
      bFetchOrder: "thread-inner",
      laneInterleave: 2,
    },
  ),
  v("dyn-k16-async4-inner-il2", "dyn-k16-async3-inner-il2 with 4 stages (99 KB)", {
    sharedScope: "shared.dyn",
    tileK: 16,
    fetch: "async",
    pipeline: asyncPipeline(4),
    aFetchOrder: "thread-inner",
    bFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
  v("b128x2-il2", "128×128 tiles of 128 threads (4×2 sub-tiles of 4×4 each), two blocks per SM: a barrier stalls half the SM; lanes interleaved", {
    ...TWO_BLOCKS,
    laneInterleave: 2,
  }),
  v("b128x2-il2-binner", "b128x2-il2, B by consecutive threads (conflict-free stores; a register stage of 8 floats per thread)", {
    ...TWO_BLOCKS,
    laneInterleave: 2,
    bFetchOrder: "thread-inner",
  }),
  v("b128x2-async4-il2", "b128x2-il2 with cp.async, 4 stages (32 KiB per block), B by consecutive threads", {
    ...TWO_BLOCKS,
    laneInterleave: 2,
    fetch: "async",
    pipeline: asyncPipeline(4),
    aPad: 0,
    bFetchOrder: "thread-inner",
  }),
  v("b128x2-async4-late-inner-il2", "b128x2-async4-il2, A coalesced and padded, copies after the compute", {
    ...TWO_BLOCKS,
    laneInterleave: 2,
    fetch: "async",
    pipeline: asyncLate(4),
    aFetchOrder: "thread-inner",
    bFetchOrder: "thread-inner",
  }),
  v(
    "w32x64-t512-il2-vec2",
    "512 threads of 2×2 sub-tiles of 4×4 (64 accumulators, 128 registers): CUTLASS warp tiles of 32×64 with lanes 4×8 interleaved; 8-byte fetches",
    {
      ...WARP_32X64,
      vector: 2,
    },
  ),
  v("w32x64-t512-il2-async4-vec2", "w32x64-t512-il2-vec2 with cp.async, 4 stages, A unpadded", {
    ...WARP_32X64,
    vector: 2,
    fetch: "async",
    pipeline: asyncPipeline(4),
    aPad: 0,
  }),
  v("w32x64-t512-il2-k16-dyn-async3", "w32x64 warp tiles, 512 threads, k chunks of 16, 3 async stages in dynamic shared memory (72 KiB)", {
    ...WARP_32X64,
    tileK: 16,
    fetch: "async",
    pipeline: asyncPipeline(3),
    aPad: 0,
    sharedScope: "shared.dyn",
    bFetchOrder: "thread-inner",
  }),
  v("k16-pad0", "k chunks of 16, register prefetch, A unpadded (48 KiB)", { tileK: 16, aPad: 0 }),
  v("k16-pad0-il2", "k16-pad0 + lanes interleaved", { tileK: 16, aPad: 0, laneInterleave: 2 }),
  v("k16-pad0-il2-binner", "k16-pad0-il2, B by consecutive threads (conflict-free stores of its two float4 per thread)", {
    tileK: 16,
    aPad: 0,
    laneInterleave: 2,
    bFetchOrder: "thread-inner",
  }),
  v("k16-async2", "k chunks of 16, cp.async double buffer, A unpadded (48 KiB), B fetched by consecutive threads", {
    tileK: 16,
    fetch: "async",
    pipeline: asyncPipeline(2),
    aPad: 0,
    bFetchOrder: "thread-inner",
  }),
  v("k16-async2-il2", "k16-async2 + lanes interleaved", {
    tileK: 16,
    fetch: "async",
    pipeline: asyncPipeline(2),
    aPad: 0,
    bFetchOrder: "thread-inner",
    laneInterleave: 2,
  }),
];

const int = (min: number) => z.number().int().min(min);

const PipelineSchema = z.union([
  z.null(),
  z.literal("register-prefetch").transform((): PipelineAnnotation => REGISTER_PREFETCH_PIPELINE),
  z
    .object({ async: int(2) })
    .strict()
    .transform(({ async }): PipelineAnnotation => asyncPipeline(async)),
  z
    .object({ stages: z.array(int(0)), order: z.array(int(0)), asyncStages: z.array(int(0)).optional() })
    .strict()
    .transform(
      (p): PipelineAnnotation =>
        p.asyncStages === undefined ? { stages: p.stages, order: p.order } : { stages: p.stages, order: p.order, asyncStages: p.asyncStages },
    ),
]);

const ParamsSchema = z
  .object({
    blockRows: int(1),
    blockCols: int(1),
    tileK: int(1),
    threadRows: int(1),
    threadCols: int(1),
    vthreadRows: int(1),
    vthreadCols: int(1),
    vector: int(1),
    pipeline: PipelineSchema,
    minBlocksPerSM: int(0),
    unrollMaxStep: int(0),
    unrollExplicit: z.boolean(),
    warpCols: int(0),
    fetch: z.enum(["registers", "async"]),
    aPad: int(0),
    aFetchOrder: z.enum(["thread-outer", "thread-inner"]),
    bFetchOrder: z.enum(["thread-outer", "thread-inner"]),
    laneInterleave: int(1),
    subTilePlacement: z.enum(["block", "warp"]),
    sharedScope: z.enum(["shared", "shared.dyn"]),
  })
  .partial()
  .strict();

const VariantSchema = z
  .object({
    name: z.string().regex(/^[\w.+-]+$/, "a variant name is letters, digits and . _ + - (it names files)"),
    description: z.string().optional(),
    params: ParamsSchema,
  })
  .strict();

const VariantArraySchema = z.array(VariantSchema);
const VariantFileSchema = z.object({ variants: VariantArraySchema }).strict();

/** The variants of a JSON file, or an Error naming the file and what is wrong where. */
export function readVariantFile(path: string): GemmVariant[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  // Parsed apart (not as a union), so that an issue keeps its path into the variant.
  const parsed = Array.isArray(json) ? VariantArraySchema.safeParse(json) : VariantFileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.length === 0 ? "(top level)" : i.path.join(".")}: ${i.message}`);
    throw new Error(`${path}: not a list of gemm variants:\n  ${issues.join("\n  ")}`);
  }
  const list = "variants" in parsed.data ? parsed.data.variants : parsed.data;
  const variants = list.map((x) => {
    const params = Object.fromEntries(Object.entries(x.params).filter(([, value]) => value !== undefined)) as Partial<FastScheduleParams>;
    return { name: x.name, description: x.description ?? "", params };
  });
  const seen = new Set<string>();
  for (const x of variants) {
    if (seen.has(x.name)) throw new Error(`${path}: two variants are named ${x.name}`);
    seen.add(x.name);
  }
  return variants;
}
