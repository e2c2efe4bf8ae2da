/**
 * Turning traces into candidates, the step every search strategy repeats: replay a trace (with
 * its decisions, or sampling afresh) plus the postprocessors, tally the reason of every failure,
 * and identify the resulting program so that duplicates can be dropped.
 *
 * Identity: two candidates are the same when their functions are structurally equal, i.e. have
 * the same `structuralHash`. Hashing costs a fraction of a replay, but the same trace (decisions
 * included) always gives the same program, so the hash is cached by a digest of the trace's
 * JSON — a cheap pre-filter that makes re-replayed parents and repeated mutations free to identify.
 */
import type { RandomEngine, Schedule, Trace } from "@tessera/schedule";
import type { Postproc } from "../interfaces/postproc.js";
import { loweredModuleFor } from "../postproc/verify-gpu-code.js";
import { programHashesOf } from "../support/program-hashes.js";
import { threadPrefixStates } from "../space/prefix-states.js";
import { replayWithPostprocs } from "../space/replay.js";
import type { TuneContext } from "../tune-context.js";
import type { RejectionTally } from "./rejection-tally.js";
import { type PostprocSet, type ReplayReply, postprocSetOf } from "./replay-job.js";
import type { ReplayPool } from "./replay-pool.js";
import { launchClassOfModule } from "./launch-classes.js";
import { type Candidate, LazyCandidate } from "./lazy-candidate.js";
import { traceKeyOf } from "./trace-key.js";
import { DEFAULT_REPLAY_CACHE_SIZE, ReplayCache, type ReplayOutcomeOf } from "./replay-cache.js";

export type { Candidate } from "./lazy-candidate.js";
export { traceKeyOf } from "./trace-key.js";

/** Bounded cache: traces are replayed by the thousand over a long run. */
const MAX_CACHED_TRACES = 100_000;

export class ProgramIdentity {
  private readonly hashByTrace = new Map<string, string>();

  identify(sch: Schedule): { readonly hash: string; readonly traceKey: string } {
    const traceKey = traceKeyOf(sch.trace.toJSON());
    const cached = this.hashByTrace.get(traceKey);
    if (cached !== undefined) return { hash: cached, traceKey };
    const hash = programHashesOf(sch.func).withoutNames;
    if (this.hashByTrace.size >= MAX_CACHED_TRACES) this.hashByTrace.clear();
    this.hashByTrace.set(traceKey, hash);
    return { hash, traceKey };
  }
}

/** A replay to do: the trace, fresh or recorded decisions, and the seed drawn for it (in the order of the search's draws). */
export interface PlannedReplay {
  readonly trace: Trace;
  readonly freshDecisions: boolean;
  readonly seed: number;
}

function outcomeOfReply(reply: ReplayReply): ReplayOutcomeOf {
  if (!reply.ok) return { rejected: reply.reason };
  return { candidate: new LazyCandidate(reply.func, reply.traceText, reply.hash, reply.traceKey, reply.estimate, reply.launchClass) };
}

export class CandidateReplayer {
  readonly identity = new ProgramIdentity();
  /** Outcomes of replays that cannot depend on their seed (replay-cache.ts). */
  readonly cache: ReplayCache;
  /** The postprocessors as a worker rebuilds them; undefined: replays stay in this thread. */
  private readonly workerPostprocs: PostprocSet | undefined;
  /** The JSON text of the traces fresh samples are drawn from (`textOf`). */
  private readonly designTexts = new WeakMap<Trace, string>();

  constructor(
    private readonly ctx: TuneContext,
    private readonly postprocs: readonly Postproc[],
    private readonly rng: RandomEngine,
    private readonly pool?: ReplayPool,
    cacheSize = DEFAULT_REPLAY_CACHE_SIZE,
  ) {
    this.cache = new ReplayCache(cacheSize);
    this.workerPostprocs = pool === undefined ? undefined : postprocSetOf(ctx.target, postprocs);
    if (pool !== undefined && this.workerPostprocs === undefined)
      ctx.log("info", `[${ctx.taskName}] the space's postprocessors are not a default list that search workers can rebuild; replaying in the search's thread`);
  }

  /**
   * This replayer drawing its replays' seeds from `rng` instead: the same pool, replay cache and
   * program identities. A first-round island evolves on one beside the others (evolutionary-search.ts),
   * its draws its own whatever order their replays come back in.
   */
  drawingFrom(rng: RandomEngine): CandidateReplayer {
    const view = Object.create(this) as CandidateReplayer;
    Object.defineProperty(view, "rng", { value: rng });
    return view;
  }

  /** Whether batches replay in worker threads. */
  get parallel(): boolean {
    return this.workerPostprocs !== undefined;
  }

  /** A fresh sample to replay: a random design space, a seed (both drawn now). */
  planFresh(designSpaces: readonly Trace[]): PlannedReplay {
    const trace = designSpaces[this.rng.int(0, designSpaces.length)]!;
    return { trace, freshDecisions: true, seed: this.rng.forkSeed() };
  }

  /** A recorded trace to replay, with its seed drawn now. */
  planRecorded(trace: Trace): PlannedReplay {
    return { trace, freshDecisions: false, seed: this.rng.forkSeed() };
  }

  /**
   * The planned replays, in worker threads when there is a pool: one result per plan, in order;
   * failures tallied. A replay whose outcome cannot depend on its seed is looked up in the replay
   * cache first, and replayed once when a batch holds it twice. The same plans give the same
   * candidates with or without workers.
   */
  async replayAll(plans: readonly PlannedReplay[], tally: RejectionTally): Promise<(Candidate | undefined)[]> {
    const texts = plans.map((p) => this.textOf(p));
    const keys = plans.map((p, k) => this.cache.keyOfText(p.trace, texts[k]!, p.freshDecisions));
    const outcomes = new Array<ReplayOutcomeOf | undefined>(plans.length);
    const firstOfKey = new Map<string, number>();
    const sameAs = new Map<number, number>();
    const todo: number[] = [];
    keys.forEach((key, k) => {
      if (key !== undefined) {
        outcomes[k] = this.cache.get(key);
        if (outcomes[k] !== undefined) return;
        const first = firstOfKey.get(key);
        if (first !== undefined) {
          sameAs.set(k, first);
          return;
        }
        firstOfKey.set(key, k);
      }
      todo.push(k);
    });
    const replayed = await this.replayUncached(
      todo.map((k) => plans[k]!),
      todo.map((k) => texts[k]!),
    );
    todo.forEach((k, i) => {
      outcomes[k] = replayed[i]!;
      const key = keys[k];
      if (key !== undefined) this.cache.set(key, replayed[i]!);
    });
    for (const [k, first] of sameAs) {
      outcomes[k] = outcomes[first];
      this.cache.hits++;
    }
    return outcomes.map((o) => this.candidateOf(o!, tally));
  }

  /**
   * The JSON text of a plan's trace. A fresh sample's trace is one of the run's design spaces
   * (SearchRun's own simplified copies, which nothing appends to), the same few objects all search
   * long (256 fresh samples a round at population 256): their text is made once.
   */
  private textOf(plan: PlannedReplay): string {
    if (!plan.freshDecisions) return JSON.stringify(plan.trace.toJSON());
    let text = this.designTexts.get(plan.trace);
    if (text === undefined) this.designTexts.set(plan.trace, (text = JSON.stringify(plan.trace.toJSON())));
    return text;
  }

  /** Replays the plans (their traces' JSON text beside them), in worker threads when there is a pool. */
  private async replayUncached(plans: readonly PlannedReplay[], texts: readonly string[]): Promise<ReplayOutcomeOf[]> {
    const pool = this.pool;
    const postprocs = this.workerPostprocs;
    if (pool === undefined || postprocs === undefined || plans.length === 0) return plans.map((p) => this.replayHere(p));
    // Until the search has replayed long enough here to pay for starting them, or the rest of the
    // batch would by itself, the workers stay unstarted (replay-pool.ts); the rest then goes to them.
    const outcomes: ReplayOutcomeOf[] = [];
    while (outcomes.length < plans.length && !pool.engageFor(plans.length - outcomes.length)) outcomes.push(this.replayHere(plans[outcomes.length]!));
    const from = outcomes.length;
    if (from === plans.length) return outcomes;
    const replies = await pool.replay({
      workload: this.ctx.workload,
      target: this.ctx.target,
      postprocs,
      requests: plans.slice(from).map((p, k) => ({ trace: texts[from + k]!, freshDecisions: p.freshDecisions, seed: p.seed })),
    });
    return [...outcomes, ...replies.map(outcomeOfReply)];
  }

  /**
   * Remembers candidates by their own traces: a replay records every decision it samples, so
   * replaying a candidate's trace as recorded gives its program again. The search hands its picks
   * out here: the next round starts from the database's best records, the picks just measured
   * among them, and replaying those ~32 traces again had been a batch (and a barrier) of every round.
   */
  remember(candidates: readonly Candidate[]): void {
    for (const candidate of candidates) this.cache.set(candidate.traceKey, { candidate });
  }

  private candidateOf(outcome: ReplayOutcomeOf, tally: RejectionTally): Candidate | undefined {
    if ("candidate" in outcome) return outcome.candidate;
    tally.add(outcome.rejected);
    return undefined;
  }

  private replayHere(plan: PlannedReplay): ReplayOutcomeOf {
    // The process's CPU (getrusage): the search's thread, and anything the process runs beside it.
    const started = this.parallel ? process.cpuUsage() : undefined;
    try {
      const out = replayWithPostprocs(this.ctx, plan.trace, this.postprocs, {
        freshDecisions: plan.freshDecisions,
        seed: plan.seed,
        prefixStates: threadPrefixStates(),
      });
      if (!out.ok) return { rejected: out.reason };
      const sch = out.sch;
      return { candidate: { sch, trace: sch.trace, ...this.identity.identify(sch), launchClass: launchClassOfModule(loweredModuleFor(sch.func)) } };
    } finally {
      if (started !== undefined) {
        const spent = process.cpuUsage(started);
        this.pool?.noteReplayedInThread((spent.user + spent.system) / 1000);
      }
    }
  }

  /** One planned replay in this thread, through the replay cache. */
  private replayPlanned(plan: PlannedReplay, tally: RejectionTally): Candidate | undefined {
    const key = plan.freshDecisions ? undefined : this.cache.keyOf(plan.trace, plan.trace.toJSON(), false);
    let outcome = key === undefined ? undefined : this.cache.get(key);
    if (outcome === undefined) {
      outcome = this.replayHere(plan);
      if (key !== undefined) this.cache.set(key, outcome);
    }
    return this.candidateOf(outcome, tally);
  }

  /** A new point of a random design space: its trace replayed with every decision sampled afresh. */
  sampleFresh(designSpaces: readonly Trace[], tally: RejectionTally): Candidate | undefined {
    return this.replayPlanned(this.planFresh(designSpaces), tally);
  }

  /** The trace replayed as recorded (a measured record, a mutated trace). */
  replayRecorded(trace: Trace, tally: RejectionTally): Candidate | undefined {
    return this.replayPlanned(this.planRecorded(trace), tally);
  }
}
