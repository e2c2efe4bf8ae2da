/**
 * MultiLevelTiling for CPU (TVM's `ScheduleRule::DefaultLLVM` configuration of
 * `MultiLevelTiling`): structure `SSRSRS`, no thread bindings, tiles sampled with
 * `max_innermost_factor = 64`, and write reuse "may" in global scope at levels 1 and 2 — one
 * design space without a write cache, and one per level with a `C_global` cache computed at the
 * last loop of that level; an elementwise consumer (a ReLU) serves as the cache instead.
 * Beyond TVM, which read-only parameters RewriteLayout packs is sampled (`LAYOUT_REWRITE`): TVM
 * packs constant weights once, ahead of time; here the copy runs on every call, and for operands
 * that fit the caches it can cost more than it saves (a 64³ matmul's copies were a third of its time).
 */
import type { BlockRV, LoopRV, Schedule, StorageScopeName } from "@tessera/schedule";
import { needsMultiLevelTiling } from "../schedule-utils/block-info.js";
import { LAYOUT_REWRITE, TILING_STRUCTURE } from "../schedule-utils/annotations.js";
import type { TuneContext } from "../tune-context.js";
import { checkPositiveInts } from "../schedule-utils/options.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";
import { type RegisterTile, type RegisterTilePlacement, distinctPlacements, registerTilePlacements } from "./tiling-cpu/register-tile.js";
import { type TileLevels, tileLoopNest } from "./tiling-cpu/tile-loop-nest.js";
import { parseTileStructure } from "./tiling-cpu/tile-structure.js";
import { isWriteCache } from "./tiling-cpu/write-cache.js";

/** TVM's CpuReuseConfig: "no" reuse, "may" (with and without a cache) or "must". */
export interface CpuReuseConfig {
  readonly req: "no" | "may" | "must";
  /** 1-based tile levels at whose last loop the cache is computed. */
  readonly levels: readonly number[];
  readonly scope: StorageScopeName;
}

export interface MultiLevelTilingCpuOptions {
  readonly structure?: string;
  readonly maxInnermostFactor?: number;
  readonly reuseWrite?: CpuReuseConfig;
  /**
   * Register tiles for the innermost spatial level, one design space each (`registerTilesFor`); a block
   * whose output columns none of them divides is tiled as in TVM. Default: none (TVM's sampling). A function
   * is asked once, at the first block (the machine's tiles are probed only when a space is generated).
   */
  readonly registerTiles?: readonly RegisterTile[] | (() => readonly RegisterTile[]);
  /** Sample which read-only parameters RewriteLayout packs (`LAYOUT_REWRITE`; default false: all it can, TVM's). */
  readonly sampleLayoutRewrite?: boolean;
}

/** Most packable operands whose subsets are sampled (2^this candidates); a block with more packs them all. */
const MAX_SAMPLED_PACKINGS = 3;

export const CPU_WRITE_REUSE: CpuReuseConfig = { req: "may", levels: [1, 2], scope: "global" };

export function multiLevelTilingCpu(opts: MultiLevelTilingCpuOptions = {}): ScheduleRule {
  const rule = "multiLevelTiling";
  const structure = parseTileStructure(rule, opts.structure ?? "SSRSRS");
  const maxInnermostFactor = opts.maxInnermostFactor ?? 64;
  const reuseWrite = opts.reuseWrite ?? CPU_WRITE_REUSE;
  let registerTiles: readonly RegisterTile[] | undefined;
  const tilesOf = (): readonly RegisterTile[] => {
    if (registerTiles !== undefined) return registerTiles;
    const tiles = typeof opts.registerTiles === "function" ? opts.registerTiles() : (opts.registerTiles ?? []);
    for (const t of tiles) checkPositiveInts(rule, "registerTiles", [t.rows, t.columns]);
    registerTiles = tiles;
    return tiles;
  };
  if (typeof opts.registerTiles !== "function") tilesOf();
  checkPositiveInts(rule, "maxInnermostFactor", [maxInnermostFactor]);
  if (reuseWrite.req !== "no") {
    checkPositiveInts(rule, "reuseWrite.levels", reuseWrite.levels);
    const bad = reuseWrite.levels.find((l) => l > structure.text.length);
    if (bad !== undefined) throw new RangeError(`${rule}: reuseWrite level ${bad} is beyond the ${structure.text.length} levels of ${structure.text}`);
  }
  return {
    name: rule,
    apply(sch: Schedule, block: BlockRV, _ctx: TuneContext): Schedule[] {
      if (!needsMultiLevelTiling(sch, block)) return [sch];
      const placements = distinctPlacements(tilesOf().flatMap((t) => registerTilePlacements(sch.get(block), t)));
      const variants: (RegisterTilePlacement | undefined)[] = placements.length === 0 ? [undefined] : placements;
      return variants.flatMap((placement) => {
        const tiled = sch.copy();
        tiled.annotate(block, TILING_STRUCTURE, structure.text);
        const levels = tileLoopNest(tiled, block, structure, maxInnermostFactor, placement?.factors);
        if (placement !== undefined) unrollRows(tiled, levels[structure.spatial.at(-1)!]!, placement);
        if (opts.sampleLayoutRewrite === true) sampleLayoutRewrite(tiled, block);
        return addWriteReuse(tiled, block, levels, reuseWrite);
      });
    },
  };
}

/** The register tile's row loops unrolled (each row's accumulators become registers of their own); the column loop is left to the vectorizer. */
function unrollRows(sch: Schedule, registerLevel: readonly LoopRV[], placement: RegisterTilePlacement): void {
  // The level holds the tile's loops in iterator order.
  const iterators = [...placement.factors.keys()].sort((a, b) => a - b);
  registerLevel.forEach((loop, k) => {
    if (iterators[k] !== placement.column) sch.unroll(loop);
  });
}

/**
 * Samples which of the block's read-only buffer parameters RewriteLayout may pack: a mask over the
 * function's parameters (bit p for the p-th), each subset equally likely.
 */
function sampleLayoutRewrite(sch: Schedule, block: BlockRV): void {
  const func = sch.func;
  const b = sch.get(block);
  const written = new Set(b.writes.map((w) => w.buffer));
  const params = func.params.map((p) => func.bufferMap.get(p));
  const packable = [...new Set(b.reads.map((r) => r.buffer))]
    .filter((buf) => !written.has(buf))
    .map((buf) => params.indexOf(buf))
    .filter((p) => p >= 0);
  if (packable.length === 0 || packable.length > MAX_SAMPLED_PACKINGS) return;
  const masks = Array.from({ length: 1 << packable.length }, (_, subset) => packable.reduce((mask, p, k) => ((subset >> k) & 1 ? mask | (1 << p) : mask), 0));
  sch.annotate(
    block,
    LAYOUT_REWRITE,
    sch.sampleCategorical(
      masks,
      masks.map(() => 1 / masks.length),
    ),
  );
}

/**
 * TVM's `AddWriteReuse`. With "may", a single consumer that already acts as a write cache (an
 * elementwise epilogue, see `isWriteCache`) is computed at each level, and the tiling without it
 * moved kept; otherwise one space without a cache and, as with "must", one per level with a new
 * cache computed there.
 */
function addWriteReuse(sch: Schedule, block: BlockRV, levels: TileLevels, config: CpuReuseConfig): Schedule[] {
  if (config.req === "no") return [sch];
  const atLevels = (cache: BlockRV): Schedule[] =>
    config.levels.map((level) => {
      const variant = sch.copy();
      variant.reverseComputeAt(cache, levels[level - 1]!.at(-1), true);
      return variant;
    });
  if (config.req === "may") {
    const consumers = sch.getConsumers(block);
    const only = consumers.length === 1 ? consumers[0]! : undefined;
    if (only !== undefined && isWriteCache(sch.get(only))) return [...atLevels(only), sch];
    const withoutCache = sch.copy();
    return [withoutCache, ...atLevels(sch.cacheWrite(block, 0, config.scope))];
  }
  return atLevels(sch.cacheWrite(block, 0, config.scope));
}
