/**
 * The CPU search's prior seeds (database/prior-seeds.ts, `cpuMicroKernelPriors`): the structure of
 * the hand-written d2l matmul (`matmulCpu`) expressed as decisions of the default CPU space. Seeded
 * into that space they replay to the hand schedule's loop nest, compute what the workload computes
 * (executor, before and after), and the evolutionary search measures them in its first batch.
 */
import { target as targetOf } from "@tessera/codegen";
import { type MachineProfile, conv2dCpu, matmulCpu } from "@tessera/corpus/d2l-cpu";
import { type ForKind, type PrimFunc, gemmReluAdd, ops, randomArgs, structuralEqual } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { GEMM_WINNERS_2048, cpuMicroKernelPriors, priorsFor, seedsFromPriors } from "../../src/database/prior-seeds.js";
import { MemoryDatabase } from "../../src/database/memory-database.js";
import { parallelMarginOn, parallelPayoffOn } from "../../src/postproc/parallel-payoff.js";
import { multiLevelTilingCpu } from "../../src/rules/multi-level-tiling-cpu.js";
import { EvolutionarySearch } from "../../src/search/evolutionary-search.js";
import { defaultCpuMutators, defaultCpuPostprocs, defaultCpuRules } from "../../src/space/cpu-defaults.js";
import { PostOrderApply } from "../../src/space/post-order-apply.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";
import { blockNamesPostOrder } from "../../src/rules/multi-level-tiling/block-query.js";
import { runOnCopies } from "./loop-helpers.js";

const CORES = 2;
/** A machine on which a parallel region never pays at these sizes, so both sides stay serial. */
const PROFILE: MachineProfile = { cores: CORES, parallelRegionUs: 50, l1DataBytes: 48 * 1024, l2Bytes: 1024 * 1024, simdBytes: 32, source: "probed" };
/** The hand schedule's register tile, fixed in the space too (the default probes this machine). */
const TILE = { rows: 8, columns: 16 };

function cpuSpace(func: PrimFunc) {
  const ctx = tuneContext(workloadOf(func), targetOf("c"), { seed: 3, numThreads: CORES });
  const rules = defaultCpuRules({ parallelMargin: parallelMarginOn(() => PROFILE) }).map((r) =>
    r.name === "multiLevelTiling" ? multiLevelTilingCpu({ registerTiles: [TILE], sampleLayoutRewrite: true }) : r,
  );
  const gen = new PostOrderApply({ rules, postprocs: defaultCpuPostprocs({ payoff: parallelPayoffOn(() => PROFILE) }), mutators: defaultCpuMutators() });
  gen.initialize(ctx);
  const spaces = gen.generateDesignSpace(ctx);
  return { ctx, gen, spaces };
}

/** The loops around the update block (`block`, or its `_update` after RewriteReductionBlock), outermost first, unit loops left out: extent and kind. */
function computeNest(func: PrimFunc, block = "C"): [number, ForKind][] {
  const sch = new Schedule(func);
  const update = blockNamesPostOrder(func).includes(`${block}_update`) ? `${block}_update` : block;
  return sch
    .getLoops(sch.getBlock(update))
    .map((rv) => sch.get(rv))
    .flatMap((l) => (l.extent.kind === "IntImm" && l.extent.value > 1 ? [[l.extent.value, l.forKind] as [number, ForKind]] : []));
}

describe("the CPU prior seeds (the hand-written kernels' structure)", () => {
  const n = 32;
  const func = ops.matmul(n, n, n).func;
  const hand = matmulCpu(n, n, n, { mr: TILE.rows, nr: TILE.columns }, { parallel: false, pack: false }).scheduled;

  it("replay, in the design space with the write cache under the register tile's loops, to the hand schedule's loop nest, and compute what it computes", () => {
    const { ctx, gen, spaces } = cpuSpace(func);
    const seeds = seedsFromPriors(
      ctx.workload,
      spaces.map((s) => s.trace),
      spaces.length,
      cpuMicroKernelPriors(CORES),
    );
    expect(seeds).toHaveLength(spaces.length);
    const args = randomArgs(func, 5);
    const want = runOnCopies(func, args).at(-1)!;
    const nests: string[] = [];
    for (const [k, seed] of seeds.entries()) {
      const out = replayWithPostprocs(ctx, seed, gen.postprocs, { seed: k });
      expect(out.ok, out.ok ? "" : out.reason).toBe(true);
      if (!out.ok) continue;
      const got = runOnCopies(out.sch.func, args).at(-1)!;
      got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!))));
      nests.push(JSON.stringify(computeNest(out.sch.func)));
      // The first prior reads the operands in place (as the hand schedule does while B fits L2).
      expect(blockNamesPostOrder(out.sch.func).some((b) => b.startsWith("A_global") || b.startsWith("B_global"))).toBe(false);
    }
    // Row blocks, column tiles, the whole reduction, then the 8 unrolled rows by 16 vectorized columns.
    expect(computeNest(hand)).toEqual([
      [n / TILE.rows, "serial"],
      [n / TILE.columns, "serial"],
      [n, "serial"],
      [TILE.rows, "unrolled"],
      [TILE.columns, "vectorized"],
    ]);
    expect(nests).toContain(JSON.stringify(computeNest(hand)));
  });

  it("leave out a prior's repeat: with no parallel structure sampled, the other-parallel prior gives the in-place seeds again", () => {
    const { ctx, spaces } = cpuSpace(func);
    const traces = spaces.map((s) => s.trace);
    const [inPlace, other] = cpuMicroKernelPriors(CORES);
    expect(seedsFromPriors(ctx.workload, traces, 100, [inPlace!])).toHaveLength(spaces.length);
    expect(seedsFromPriors(ctx.workload, traces, 100, [inPlace!, other!])).toHaveLength(spaces.length);
  });

  it("the second prior packs the operands RewriteLayout can, in the same loop nest", () => {
    const { ctx, gen, spaces } = cpuSpace(func);
    const packing = cpuMicroKernelPriors(CORES).find((p) => p.name.includes("operands packed"))!;
    const [packed] = seedsFromPriors(ctx.workload, [spaces[0]!.trace], 1, [packing]);
    const out = replayWithPostprocs(ctx, packed!, gen.postprocs, { seed: 1 });
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(blockNamesPostOrder(out.sch.func).filter((b) => b.endsWith("_global") && !b.startsWith("C"))).toHaveLength(2);
    const args = randomArgs(func, 6);
    const want = runOnCopies(func, args).at(-1)!;
    runOnCopies(out.sch.func, args)
      .at(-1)!
      .forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!))));
  });

  it("replay, for a conv2d, to the hand-written d2l conv2d's loop nest (a block of output channels by a vector of columns), and compute what it computes", () => {
    const size = { channels: 8, size: 16, kernel: 3, padding: 1 };
    const conv = conv2dCpu(size, { vectorized: "columns", ocTile: TILE.rows, owTile: TILE.columns }, { cores: CORES, parallel: false });
    // Output rows, the whole reduction (channels, kernel rows, kernel columns), 8 unrolled channels by 16 vectorized columns.
    const handNest = computeNest(conv.scheduled, "Y");
    expect(handNest).toEqual([
      [16, "serial"],
      [8, "serial"],
      [3, "serial"],
      [3, "serial"],
      [TILE.rows, "unrolled"],
      [TILE.columns, "vectorized"],
    ]);
    const { ctx, gen, spaces } = cpuSpace(conv.original);
    const seeds = seedsFromPriors(
      ctx.workload,
      spaces.map((s) => s.trace),
      spaces.length,
      cpuMicroKernelPriors(CORES),
    );
    const args = randomArgs(conv.original, 7);
    const want = runOnCopies(conv.original, args).at(-1)!;
    const nests: string[] = [];
    for (const [k, seed] of seeds.entries()) {
      const out = replayWithPostprocs(ctx, seed, gen.postprocs, { seed: k });
      expect(out.ok, out.ok ? "" : out.reason).toBe(true);
      if (!out.ok) continue;
      nests.push(JSON.stringify(computeNest(out.sch.func, "Y")));
      // The padding computed whole at the root, as the hand schedule does (not again inside every tile).
      const sch = new Schedule(out.sch.func);
      const convLoops = new Set(sch.getLoops(sch.getBlock("Y_update")).map((l) => sch.get(l)));
      expect(sch.getLoops(sch.getBlock("PaddedX")).some((l) => convLoops.has(sch.get(l)))).toBe(false);
      const nest = nests.at(-1)!;
      if (nest !== JSON.stringify(handNest)) continue;
      const got = runOnCopies(out.sch.func, args).at(-1)!;
      got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!))));
    }
    expect(nests).toContain(JSON.stringify(handNest));
  });

  it("put the first tiled loop's parallel jobs at its outer level: at most 16 per core, a divisor of its extent", () => {
    const big = ops.matmul(1024, 64, 16).func;
    const { ctx, spaces } = cpuSpace(big);
    const [seed] = seedsFromPriors(ctx.workload, [spaces[0]!.trace], 1, cpuMicroKernelPriors(CORES));
    const tiles = seed!.instructions.filter((i) => i.kind.name === "SamplePerfectTile").map((i) => seed!.getDecision(i));
    // i: 1024 / 8 = 128 row blocks, 32 of them in parallel; j: 64 / 16 = 4 tiles; k: 16 at the outer level.
    expect(tiles).toEqual([
      [32, 4, 1],
      [1, 4, 1],
      [16, 1],
    ]);
  });

  it("seed the gemm+ReLU+add 2048³ on a CPU too (only the GPU table skips the workload it was measured on)", () => {
    const gemm = gemmReluAdd(2048).func;
    const { ctx, spaces } = cpuSpace(gemm);
    expect(
      seedsFromPriors(
        ctx.workload,
        spaces.map((s) => s.trace),
        2,
        priorsFor(ctx),
      ),
    ).toHaveLength(2);
    expect(seedsFromPriors(ctx.workload, [spaces[0]!.trace], 4, GEMM_WINNERS_2048)).toEqual([]);
  });

  it("are the priors of a CPU task, and measured in the evolutionary search's first batch", async () => {
    const { ctx, gen, spaces } = cpuSpace(func);
    // In place, in place with the other parallel structure, packed.
    expect(priorsFor(ctx)).toHaveLength(3);
    const seeds = seedsFromPriors(
      ctx.workload,
      spaces.map((s) => s.trace),
      4,
      priorsFor(ctx),
    ).flatMap((t, k) => {
      const out = replayWithPostprocs(ctx, t, gen.postprocs, { seed: k });
      return out.ok ? [out.sch.func] : [];
    });
    expect(seeds.length).toBeGreaterThan(0);
    const search = new EvolutionarySearch({ populationSize: 16, priorSeeds: 4, geneticNumIters: 0, epsGreedy: 0 });
    search.preTuning(ctx, { maxTrials: 8, numTrialsPerIter: 8, designSpaces: spaces, space: gen, database: new MemoryDatabase(), costModel: undefined });
    const batch = (await search.generateMeasureCandidates(ctx))!;
    for (const seed of seeds) expect(batch.some((c) => structuralEqual(c.sch.func, seed))).toBe(true);
  });
});
