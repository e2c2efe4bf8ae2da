/**
 * Test fixture: a small ScheduleFn design space of the gemm+ReLU+add workload (tile sizes of i,
 * j, k sampled), a postprocessor that rejects blocks of more than 256 threads, a tile-size
 * mutator, a deterministic fake latency computed from the sampled tiles (standing in for a
 * runner), and a nearest-neighbour cost model trained on what was measured.
 */
import { target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { type Instruction, type RandomEngine, type Schedule, Trace } from "@tessera/schedule";
import {
  type CostModel,
  type Database,
  type Logger,
  type MeasureCandidate,
  MemoryDatabase,
  type Mutator,
  type Postproc,
  POSTPROC_OK,
  type RunnerResult,
  ScheduleFnSpace,
  type SearchStrategy,
  type TuneContext,
  argsInfoOf,
  rejected,
  tuneContext,
  workloadOf,
} from "../../src/index.js";

export const GEMM_SIZE = 64;
export const MAX_THREADS = 256;

export function gemmWorkload() {
  return workloadOf(gemmReluAdd(GEMM_SIZE).func);
}

/** i → (block, thread, register), j likewise, k → (outer, inner). */
export function gemmTileSpace(sch: Schedule): void {
  tileGemm(sch, 8, 16);
}

/** The gemm's tiling and binding of gemmTileSpace, the innermost tile of i and j at most `ijInner`, of k at most `kInner`. */
export function tileGemm(sch: Schedule, ijInner: number, kInner: number): void {
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm);
  const [bi, ti, ri] = sch.split(i, sch.samplePerfectTile(i, 3, ijInner));
  const [bj, tj, rj] = sch.split(j, sch.samplePerfectTile(j, 3, ijInner));
  const [ko, ki] = sch.split(k, sch.samplePerfectTile(k, 2, kInner));
  sch.reorder(bi, bj, ti, tj, ko, ki, ri, rj);
  sch.bind(bi, "blockIdx.x");
  sch.bind(bj, "blockIdx.y");
  sch.bind(ti, "threadIdx.x");
  sch.bind(tj, "threadIdx.y");
}

/** The sampled tile decisions of a schedule, in trace order (before postprocessing). */
export function tileDecisions(trace: Trace): number[][] {
  const out: number[][] = [];
  for (const inst of trace.instructions) {
    if (inst.kind.name === "EnterPostproc") break;
    if (inst.kind.name === "SamplePerfectTile") out.push([...(trace.getDecision(inst) as readonly number[])]);
  }
  return out;
}

export const threadLimit: Postproc = {
  name: "threadLimit",
  apply(sch) {
    const [[, ti], [, tj]] = tileDecisions(sch.trace) as [number[], number[]];
    return ti! * tj! > MAX_THREADS ? rejected(`more than ${MAX_THREADS} threads per block`) : POSTPROC_OK;
  },
};

/** Moves a factor 2 of one tile of a perfect-tile decision to another (like MutateTileSize). */
export const mutateTile: Mutator = {
  name: "mutateTile",
  apply(trace: Trace, rng: RandomEngine): Trace | undefined {
    const samples: Instruction[] = [];
    for (const inst of trace.instructions) {
      if (inst.kind.name === "EnterPostproc") break;
      if (inst.kind.name === "SamplePerfectTile") samples.push(inst);
    }
    const inst = samples[rng.int(0, samples.length)]!;
    const tiles = [...(trace.getDecision(inst) as readonly number[])];
    const maxInnermost = inst.attrs[1] as number;
    const from = tiles.map((t, k) => (t > 1 ? k : -1)).filter((k) => k >= 0);
    if (from.length === 0) return undefined;
    const x = from[rng.int(0, from.length)]!;
    const y = (x + 1 + rng.int(0, tiles.length - 1)) % tiles.length;
    if (y === tiles.length - 1 && tiles[y]! * 2 > maxInnermost) return undefined;
    tiles[x] = tiles[x]! / 2;
    tiles[y] = tiles[y]! * 2;
    return trace.withDecision(inst, tiles, { removePostproc: true });
  },
};

/**
 * Seconds for a candidate: best with 128 threads, 4×4 registers per thread and k steps of 8;
 * each octave away costs a factor. Exactly two points of the space reach the minimum.
 */
export function fakeLatency(sch: Schedule): number {
  const [[, ti, ri], [, tj, rj], [, ki]] = tileDecisions(sch.trace) as [number[], number[], number[]];
  const off = (x: number, best: number) => Math.abs(Math.log2(x) - Math.log2(best));
  const cost = off(ti! * tj!, 128) + 0.8 * off(ri! * rj!, 16) + 0.5 * off(ki!, 8) + (ri === rj ? 0 : 0.3);
  return 1e-4 * Math.exp(0.5 * cost);
}

export const BEST_FAKE_LATENCY = 1e-4;

/** Scores the slowest candidates highest: a model that has learned the opposite of the truth (a search's neighbours then come from its share alone). */
export const backwardsModel: CostModel = {
  name: "backwards",
  update: () => {},
  predict: (_ctx, cs: readonly MeasureCandidate[]) => cs.map((c) => fakeLatency(c.sch) * 1e4),
};

/** The candidate of least `fakeLatency` (the first of equals). */
export function fastestOf<C extends { readonly sch: Schedule }>(candidates: readonly C[]): C {
  return candidates.reduce((a, c) => (fakeLatency(c.sch) < fakeLatency(a.sch) ? c : a));
}

/** The tile decisions of a trace as one string (a key for sets of tilings). */
export function tileKey(trace: Trace): string {
  return JSON.stringify(tileDecisions(trace));
}

/** The first design space's trace of `spaceFn` on the gemm for `seed` (no postprocessors, no mutators). */
export function sampledTrace(spaceFn: (sch: Schedule) => void, seed: number): Trace {
  const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed });
  const space = new ScheduleFnSpace(spaceFn, { postprocs: [], mutators: [] });
  space.initialize(ctx);
  return space.generateDesignSpace(ctx)[0]!.trace;
}

/** Scores a candidate by 1 / latency of its nearest measured neighbour (L1 over log2 tiles). */
export class NearestNeighbourModel implements CostModel {
  readonly name = "nearestNeighbour";
  private readonly seen: Array<{ features: number[]; score: number }> = [];

  update(_ctx: TuneContext, candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    candidates.forEach((c, k) => {
      const r = results[k]!;
      if (r.ok) this.seen.push({ features: features(c.sch), score: 1 / r.runSecs[0]! });
    });
  }

  predict(_ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[] {
    return candidates.map((c) => {
      if (this.seen.length === 0) return 1;
      const f = features(c.sch);
      let best = this.seen[0]!;
      let bestDistance = Infinity;
      for (const s of this.seen) {
        const d = s.features.reduce((acc, v, k) => acc + Math.abs(v - f[k]!), 0);
        if (d < bestDistance) [best, bestDistance] = [s, d];
      }
      return best.score;
    });
  }
}

function features(sch: Schedule): number[] {
  return tileDecisions(sch.trace).flat().map(Math.log2);
}

export interface TuningOutcome {
  readonly handedOut: MeasureCandidate[];
  readonly batches: number;
  readonly bestLatency: number;
  readonly database: Database;
  /** The design spaces the strategy was given. */
  readonly designSpaces: readonly Schedule[];
}

/** A tuning loop with the fake latency as runner; every result goes into the database. */
export async function tuneWithFakeRunner(
  strategy: SearchStrategy,
  opts: {
    seed: number;
    maxTrials: number;
    numTrialsPerIter: number;
    costModel?: CostModel;
    database?: Database;
    log?: Logger;
    spaceFn?: (sch: Schedule) => void;
    structureSamples?: number;
    postprocs?: readonly Postproc[];
  },
): Promise<TuningOutcome> {
  const workload = gemmWorkload();
  const ctx = tuneContext(workload, target("nvidia/h100"), { seed: opts.seed, taskName: "gemm", ...(opts.log === undefined ? {} : { log: opts.log }) });
  const space = new ScheduleFnSpace(opts.spaceFn ?? gemmTileSpace, {
    postprocs: [threadLimit, ...(opts.postprocs ?? [])],
    mutators: [{ mutator: mutateTile, probability: 1 }],
    ...(opts.structureSamples === undefined ? {} : { structureSamples: opts.structureSamples }),
  });
  space.initialize(ctx);
  const database = opts.database ?? new MemoryDatabase();
  const designSpaces = space.generateDesignSpace(ctx);
  strategy.preTuning(ctx, {
    maxTrials: opts.maxTrials,
    numTrialsPerIter: opts.numTrialsPerIter,
    designSpaces,
    space,
    database,
    costModel: opts.costModel,
  });
  const handedOut: MeasureCandidate[] = [];
  let batches = 0;
  let bestLatency = Infinity;
  for (;;) {
    const batch = await strategy.generateMeasureCandidates(ctx);
    if (batch === undefined) break;
    batches++;
    const results: RunnerResult[] = batch.map((c) => ({ ok: true, runSecs: [fakeLatency(c.sch)] }));
    batch.forEach((c, k) => {
      const r = results[k]!;
      if (r.ok) bestLatency = Math.min(bestLatency, r.runSecs[0]!);
      database.commitTuningRecord({
        workload,
        trace: c.sch.trace.toJSON(),
        runSecs: r.ok ? r.runSecs : undefined,
        target: { name: "nvidia/h100", arch: "sm_90", maxThreadsPerBlock: 1024, maxSharedMemoryPerBlock: 49152 },
        argsInfo: argsInfoOf(workload.func),
      });
    });
    opts.costModel?.update(ctx, batch, results);
    strategy.notifyRunnerResults(ctx, batch, results);
    handedOut.push(...batch);
  }
  strategy.postTuning(ctx);
  return { handedOut, batches, bestLatency, database, designSpaces };
}

export { Trace };
