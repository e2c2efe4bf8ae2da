/**
 * Test-local stand-ins for the components other parts of the package provide (a ScheduleFn space,
 * a replay-trace strategy, a builder and runner with deterministic latencies, an in-memory
 * database, a counting cost model). They follow the skeleton's interfaces only, so they can be
 * swapped for the real components at merge.
 */
import { type PrimFunc, type Stmt, TesseraError, structuralHash } from "@tessera/ir";
import { Schedule, Trace } from "@tessera/schedule";
import {
  type BuilderResult,
  type Builder,
  type CostModel,
  type Database,
  type MeasureCandidate,
  type PreTuningOptions,
  type Runner,
  type RunnerResult,
  type SearchStrategy,
  type SpaceGenerator,
  type TuneContext,
  type TuningRecord,
  type Workload,
  FAILED_RUN_SECS,
  SpaceGenerationError,
  argsInfoOf,
  replayWithPostprocs,
  workloadOf,
} from "../../src/index.js";

/** A space of one schedule made by `fn` (TVM's ScheduleFn). */
export function fakeScheduleFnSpace(fn: (sch: Schedule) => void): SpaceGenerator {
  return {
    name: "FakeScheduleFn",
    postprocs: [],
    mutators: [],
    generateDesignSpace(ctx: TuneContext): Schedule[] {
      const sch = new Schedule(ctx.workload.func, { seed: ctx.rng.forkSeed() });
      try {
        fn(sch);
      } catch (err) {
        if (err instanceof TesseraError) throw new SpaceGenerationError(`the space function failed: ${err.message}`);
        throw err;
      }
      return [sch];
    },
  };
}

/** Replays a random design space with fresh decisions until the trials are used (TVM's ReplayTrace, no dedup). */
export class FakeReplayTrace implements SearchStrategy {
  readonly name = "FakeReplayTrace";
  private opts: PreTuningOptions | undefined;
  private measured = 0;
  notified = 0;
  postTuned = false;

  preTuning(_ctx: TuneContext, opts: PreTuningOptions): void {
    this.opts = opts;
  }

  generateMeasureCandidates(ctx: TuneContext): MeasureCandidate[] | undefined {
    const opts = this.opts!;
    if (this.measured >= opts.maxTrials) return undefined;
    const batch = Math.min(opts.numTrialsPerIter, opts.maxTrials - this.measured);
    const out: MeasureCandidate[] = [];
    for (let i = 0; i < batch; i++) {
      const space = opts.designSpaces[ctx.rng.int(0, opts.designSpaces.length)]!;
      const replayed = replayWithPostprocs(ctx, space.trace, opts.space.postprocs, { freshDecisions: true, seed: ctx.rng.forkSeed() });
      if (replayed.ok) out.push({ sch: replayed.sch, argsInfo: argsInfoOf(ctx.workload.func) });
    }
    this.measured += out.length;
    return out;
  }

  notifyRunnerResults(_ctx: TuneContext, _candidates: readonly MeasureCandidate[], results: readonly RunnerResult[]): void {
    this.notified += results.length;
  }

  postTuning(): void {
    this.postTuned = true;
  }
}

/** The extents of the loops on the path to the first store, outermost first. */
export function loopExtents(func: PrimFunc): number[] {
  const out: number[] = [];
  let s: Stmt | undefined = func.body;
  while (s !== undefined) {
    switch (s.kind) {
      case "For":
        if (s.extent.kind === "IntImm") out.push(s.extent.value);
        s = s.body;
        break;
      case "BlockRealize":
        s = s.block.body;
        break;
      case "SeqStmt":
        s = s.seq[0];
        break;
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt":
      case "LetStmt":
        s = s.body;
        break;
      default:
        s = undefined;
    }
  }
  return out;
}

export interface FakeMeasureRules {
  /** Seconds per run of a scheduled function. */
  readonly latencyOf: (func: PrimFunc) => number;
  /** A build error for a function, or undefined when it builds. */
  readonly buildError?: (func: PrimFunc) => string | undefined;
  /** A run error for a function, or undefined when it runs. */
  readonly runError?: (func: PrimFunc) => string | undefined;
}

/** A builder and a runner that share the built functions, with latencies decided by `rules`. */
export function fakeMeasurer(rules: FakeMeasureRules): { builder: Builder; runner: Runner; built: number; ran: number } {
  const funcs = new Map<string, PrimFunc>();
  let next = 0;
  const counts = { built: 0, ran: 0 };
  const builder: Builder = {
    name: "FakeBuilder",
    async build(inputs): Promise<BuilderResult[]> {
      return inputs.map(({ func }) => {
        counts.built++;
        const error = rules.buildError?.(func);
        if (error !== undefined) return { ok: false, error, buildMs: 0 };
        const name = `artifact_${next++}`;
        funcs.set(name, func);
        return { ok: true, artifact: { name, source: "", kernels: [] }, buildMs: 0 };
      });
    },
  };
  const runner: Runner = {
    name: "FakeRunner",
    async run(inputs): Promise<RunnerResult[]> {
      return inputs.map(({ artifact }) => {
        counts.ran++;
        const func = funcs.get(artifact.name)!;
        const error = rules.runError?.(func);
        if (error !== undefined) return { ok: false, error };
        return { ok: true, runSecs: [rules.latencyOf(func)] };
      });
    },
  };
  return {
    builder,
    runner,
    get built() {
      return counts.built;
    },
    get ran() {
      return counts.ran;
    },
  };
}

function meanSecs(r: TuningRecord): number {
  const secs = r.runSecs ?? [FAILED_RUN_SECS];
  return secs.reduce((a, b) => a + b, 0) / secs.length;
}

/** An in-memory database (TVM's MemoryDatabase). */
export class FakeDatabase implements Database {
  private readonly workloads = new Map<string, Workload>();
  private readonly records: TuningRecord[] = [];

  hasWorkload(func: PrimFunc): boolean {
    return this.workloads.has(structuralHash(func));
  }

  commitWorkload(func: PrimFunc): Workload {
    const hash = structuralHash(func);
    let w = this.workloads.get(hash);
    if (w === undefined) {
      w = workloadOf(func);
      this.workloads.set(hash, w);
    }
    return w;
  }

  commitTuningRecord(record: TuningRecord): void {
    this.records.push(record);
  }

  getTopK(workload: Workload, k: number): TuningRecord[] {
    return this.records
      .filter((r) => r.workload.hash === workload.hash && r.runSecs !== undefined && r.runSecs.every((t) => Number.isFinite(t) && t < FAILED_RUN_SECS))
      .sort((a, b) => meanSecs(a) - meanSecs(b))
      .slice(0, k);
  }

  getAllTuningRecords(): TuningRecord[] {
    return [...this.records];
  }

  size(): number {
    return this.records.length;
  }
}

/** A cost model that scores nothing in particular and counts what it was trained on. */
export class FakeCostModel implements CostModel {
  readonly name = "FakeCostModel";
  updated = 0;

  update(_ctx: TuneContext, candidates: readonly MeasureCandidate[]): void {
    this.updated += candidates.length;
  }

  predict(_ctx: TuneContext, candidates: readonly MeasureCandidate[]): number[] {
    return candidates.map(() => 1);
  }
}

/** Replays a stored record's trace onto its workload (what applying the best record does). */
export function replayRecord(record: TuningRecord): Schedule {
  const sch = new Schedule(record.workload.func);
  Trace.fromJSON(record.trace).applyTo(sch);
  return sch;
}
