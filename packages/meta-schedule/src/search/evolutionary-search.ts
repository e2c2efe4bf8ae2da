/**
 * Evolutionary search with a cost model (TVM's `EvolutionarySearch`), with crossover, launch-shape
 * caps and neighbours beyond TVM; the algorithm and its defaults: docs/architecture/meta-schedule-notes.md.
 */
import { TesseraError } from "@tessera/ir";
import { RandomEngine, Trace, type TraceJSON } from "@tessera/schedule";
import { MetaScheduleError } from "../errors.js";
import type { TuneContext } from "../tune-context.js";
import { BestCandidates, mergeBestFirst } from "./best-candidates.js";
import { crossoverStructureAndKnobs } from "./crossover.js";
import { bestGridFiller, underfillsGrid } from "./grid-filling.js";
import { capClassShare } from "./launch-classes.js";
import { climbStarts, climbStep, type Scored } from "./model-climb.js";
import { neighbourTraces } from "./neighbourhood.js";
import { type Candidate, type PlannedReplay, traceKeyOf } from "./candidate-replayer.js";
import { scoredCandidateOf } from "./lazy-candidate.js";
import { RejectionTally } from "./rejection-tally.js";
import { DUPLICATE_OF_MEASURED, type SearchRun } from "./search-run.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import { SearchStrategyBase } from "./strategy-base.js";
import { priorsFor, seedsFromPriors } from "../database/prior-seeds.js";
import { seedsFromSimilarWorkloads } from "../database/similar-records.js";
import { WeightedSampler, randomPermutation } from "./weighted-sampler.js";

export interface EvolutionarySearchConfig {
  /** Programs per generation; "auto": the larger of 2 × numTrialsPerIter and maxTrials, clamped to [64, 256]. TVM: 512. */
  readonly populationSize: number | "auto";
  /** Share of the population taken from the database's best records (TVM: 0.2). */
  readonly initMeasuredRatio: number;
  /** Fewest valid fresh samples to go on with; "auto": min(50, half the population). TVM: 50. */
  readonly initMinUnmeasured: number | "auto";
  /**
   * Fewest fresh samples drawn per round (TVM: 0, the population's fresh part): when more than the
   * fresh part, the cost model's best of them make the population, so a short budget's small
   * population still starts from the best of a wide sample. The ε-greedy picks draw on all of them.
   */
  readonly freshPoolSize: number;
  /** Rounds of initial sampling before giving up (TVM: 5). */
  readonly maxFailCount: number;
  /** Generations of mutation (TVM: 4). */
  readonly geneticNumIters: number;
  /** Probability that a slot of the next generation is a mutation rather than a copy (TVM: 0.85). */
  readonly geneticMutateProb: number;
  /**
   * Probability that a slot of the next generation is a crossover of two parents (the structure of
   * one with the other's knobs, crossover.ts) rather than a mutation or copy (TVM: 0, no crossover).
   */
  readonly crossoverProb: number;
  /** Tries per slot before the last parent drawn is copied (TVM: 10). */
  readonly geneticMaxFailCount: number;
  /** Share of each batch picked at random from the fresh samples (TVM: 0.05). */
  readonly epsGreedy: number;
  /** Empty batches in a row that end the search (TVM: 5). */
  readonly numEmptyItersBeforeEarlyStop: number;
  /** Most of a batch's cost-model picks one launch shape may take (TVM: 1, no cap). */
  readonly maxClassShare: number;
  /**
   * Share of each batch given to unmeasured programs one decision away from the best measured ones
   * (neighbourhood.ts), the cost model's favourite per changed decision first (TVM: 0).
   */
  readonly neighbourShare: number;
  /**
   * The neighbours' share of the search's last batch, which has no later round to build on: it
   * polishes the best programs measured so far, one decision at a time (TVM: 0).
   */
  readonly finalNeighbourShare: number;
  /**
   * Most records of other workloads of the same op structure, retargeted onto this task's design
   * space (database/similar-records.ts), that join the first members of the population (TVM: 0).
   */
  readonly similarSeeds: number;
  /**
   * Most built-in prior seeds (database/prior-seeds.ts: on a GPU the 2048³ gemm winners moved onto
   * this task's design space where its sampling steps match, on a CPU the hand-written kernels'
   * structure in each design space) that join the population after the similar records and are
   * measured first, in the first batch; on a GPU, each of them that launches fewer blocks than the
   * GPU has SMs brings its best-scored one-decision neighbour with more blocks, within this count
   * (search/grid-filling.ts) (TVM: 0).
   */
  readonly priorSeeds: number;
  /**
   * Climbs on the cost model a round starts once the generations are done, from its favourites of
   * distinct launch classes (model-climb.ts; TVM: 0).
   */
  readonly climbStarts: number;
  /**
   * Most steps of each climb (each replays the point's one-decision neighbours). Four met the 64-trial
   * target on 10 of 14 paired H200 seeds against two's 9 (docs/benchmarks/tuning-2026-12-01-s25).
   */
  readonly climbSteps: number;
  /**
   * Populations the first round evolves, each from fresh samples of its own ("islands"), while no
   * program of the task is measured and the model is its prior alone: the first is the round's usual
   * population, each further one evolves apart (its generations and climbs, on a random stream of
   * its own) beside it, concurrently, and the round picks from their best programs merged by
   * score. The first island's programs come first among equals, so a seed whose first population
   * reaches the prior's favourites keeps them; one whose population converged short of them gets
   * more chances to reach them (search-workers-local.md, session 17). Only with a cost model
   * (random scores have no favourites to reach). Two by default: on the H200 they met the 64-trial
   * target on 5 of 8 seeds against one's 4, never worse, for 5 s of the first round's wall
   * (docs/benchmarks/tuning-2026-11-30-s18); four, with the latency model's barrier stall, met it
   * on 5 of 6 paired seeds against 3 of 6, then on 2 of 5, and their first round took 7–11 s of a
   * 64-trial run's wall against 5 (docs/benchmarks/tuning-2026-12-01-s24) (TVM: 1, its one population).
   */
  readonly firstRoundIslands: number;
  /**
   * Trials at the end of the search given to a batch of their own (at most `numTrialsPerIter`),
   * taken wholly from the best measured programs' one-decision neighbours; the batch before it is
   * that much smaller. With overlapSearch the task scheduler searches a task's last batch once the
   * batches before it are measured, so a 64-trial run of batches of 32 keeps its blind second
   * batch (28 picks, searched while the first is measured) and polishes the best of the first 60
   * with the last 4. 0 (the default): no such batch (TVM: 0).
   */
  readonly polishTrials: number;
}

export const DEFAULT_EVOLUTIONARY_SEARCH_CONFIG: EvolutionarySearchConfig = {
  populationSize: "auto",
  initMeasuredRatio: 0.2,
  initMinUnmeasured: "auto",
  freshPoolSize: 0,
  maxFailCount: 5,
  geneticNumIters: 3,
  geneticMutateProb: 0.85,
  crossoverProb: 0.2,
  geneticMaxFailCount: 10,
  epsGreedy: 0.05,
  numEmptyItersBeforeEarlyStop: 5,
  maxClassShare: 0.25,
  neighbourShare: 0.25,
  finalNeighbourShare: 0.5,
  similarSeeds: 8,
  priorSeeds: 24,
  climbStarts: 4,
  climbSteps: 2,
  firstRoundIslands: 2,
  polishTrials: 0,
};

/** Mixed into the first-round islands' seed, so that their stream is none of the replays' (whose seeds are the search's forkSeed draws). */
const ISLAND_STREAM = 0x2545f491;

/** Best measured programs whose neighbourhoods a batch may draw on, best first. */
const MAX_INCUMBENTS = 4;

export const DUPLICATE_IN_BATCH = "duplicate of another candidate of the batch";
export const SAME_PROGRAM_AS_PARENT = "a mutation or crossover gave its parent's program again";
export const CROSSOVER_FOUND_NOTHING = "crossover found no decision to exchange";
export const NEIGHBOUR_SAME_PROGRAM = "a one-decision neighbour of a measured program is the same program";

/** What the tries of one generation draw from. */
interface Breeder {
  readonly population: readonly Candidate[];
  readonly parents: WeightedSampler;
  readonly mutators: readonly WeightedMutator[];
  readonly mutatorSampler: WeightedSampler | undefined;
  /** Parents already copied into the generation (each is copied once at most). */
  readonly copied: Uint8Array;
}

/** A replayed neighbour of a measured program, and its group: the decision it changed. */
interface Neighbour {
  readonly candidate: Candidate;
  readonly group: string;
}

/** A child to replay, and the parents whose program it must not be. */
interface Child {
  readonly plan: PlannedReplay;
  readonly parents: readonly Candidate[];
}

export class EvolutionarySearch extends SearchStrategyBase {
  readonly name = "evolutionarySearch";
  readonly config: EvolutionarySearchConfig;
  private populationSize = 0;
  private minUnmeasured = 0;
  private emptyIters = 0;
  private replayedRecords = new Map<string, Candidate | undefined>();
  /** The replayed seeds from similar workloads' records and the priors (computed in the first round). */
  private similarSeeds: Candidate[] | undefined;
  /** The priors' share of `similarSeeds`, measured ahead of the cost model's picks. */
  private priorSeeds: Candidate[] = [];
  /** Whether the prior seeds' grid-filling variants were added (grid-filling.ts; once per search). */
  private gridsFilled = false;
  private neighbourhoods = new Map<string, readonly Neighbour[]>();

  constructor(config: Partial<EvolutionarySearchConfig> = {}) {
    super();
    this.config = { ...DEFAULT_EVOLUTIONARY_SEARCH_CONFIG, ...config };
    checkConfig(this.config);
  }

  protected override started(run: SearchRun): void {
    const c = this.config;
    if (c.polishTrials > run.numTrialsPerIter) {
      throw new MetaScheduleError(
        `${this.name}: polishTrials (${c.polishTrials}) must be at most numTrialsPerIter (${run.numTrialsPerIter}): the polish is one batch`,
      );
    }
    this.populationSize = c.populationSize === "auto" ? Math.min(256, Math.max(64, 2 * run.numTrialsPerIter, run.maxTrials)) : c.populationSize;
    this.minUnmeasured = c.initMinUnmeasured === "auto" ? Math.min(50, Math.ceil(this.populationSize / 2)) : c.initMinUnmeasured;
    this.emptyIters = 0;
    this.replayedRecords = new Map();
    this.similarSeeds = undefined;
    this.priorSeeds = [];
    this.gridsFilled = false;
    this.neighbourhoods = new Map();
  }

  /**
   * The next batch. Every random draw happens in this thread, each from one stream (the search's,
   * or a first-round island's) in a fixed order, and replays go out in batches whose results are
   * used in order, so a seed gives the same candidates with any number of search workers, however
   * the islands' replays interleave (replay-pool.ts).
   */
  generateMeasureCandidates(_ctx: TuneContext): Promise<MeasureCandidate[] | undefined> {
    return this.generate(this.run("generateMeasureCandidates"));
  }

  private async generate(run: SearchRun): Promise<MeasureCandidate[] | undefined> {
    const { ctx } = run;
    for (;;) {
      const batch = this.nextBatchSize(run);
      if (batch === 0) return undefined;
      const round = new RejectionTally();
      // The islands' stream is forked from the round's start, so that no draw of the first
      // population's evolution (its climbs' replays included) changes what the islands evolve.
      const roundStart = run.rng.clone();
      const measured = await this.pickBestFromDatabase(run, Math.floor(this.populationSize * this.config.initMeasuredRatio), round);
      const sampled = await this.sampleInitPopulation(run, Math.max(this.populationSize - measured.length, this.config.freshPoolSize), round);
      const unmeasured = this.bestOfPool(run, sampled, this.populationSize - measured.length);
      const needed = Math.min(this.minUnmeasured, this.populationSize - measured.length);
      if (unmeasured.length < needed) {
        // TVM gives up here. A space whose samples often fail (a space function whose steps depend
        // on what it sampled) still has its valid ones to evolve from: go on with a warning, and
        // end only when there is nothing at all.
        const nothing = unmeasured.length === 0 && measured.length === 0;
        ctx.log(
          "warn",
          `[${ctx.taskName}] ${this.name}: only ${unmeasured.length} valid samples of the design space (${needed} wanted); ${nothing ? "the search ends" : "evolving from them"}. Rejected: ${round.summary()}`,
        );
        if (nothing) {
          run.rejections.addAll(round);
          return run.finish();
        }
      }
      const share = this.isPolishBatch(run) ? 1 : run.isLastBatch(batch) ? this.config.finalNeighbourShare : this.config.neighbourShare;
      const neighbours = await this.pickNeighbours(run, measured, Math.floor(batch * share), round);
      const firstRound = measured.length === 0 && run.trialsIssued === 0;
      // The first round's islands evolve beside its own population, each on a stream of its own.
      const islands = firstRound ? this.evolveIslands(run, batch, round, roundStart) : Promise.resolve([]);
      // Awaited below; marked handled now, so that a failure of the round's own population first does not leave it unhandled.
      islands.catch(() => undefined);
      const evolved = await this.evolveWithCostModel(run, [...measured, ...unmeasured], batch, round);
      const merged = (await islands).reduce((best, island) => mergeBestFirst(best, island, this.heapCapacity(batch)), evolved);
      const bests = merged.map((e) => e.candidate);
      const priors = this.priorSeeds.filter((c) => !run.isMeasured(c)).slice(0, batch - neighbours.length);
      const picks = this.pickWithEpsGreedy(run, sampled, bests, batch, round, [...priors, ...neighbours]);
      run.rejections.addAll(round);
      const handedOut = run.handOut(picks);
      run.logRound(this.name, picks.length, round);
      if (picks.length > 0) {
        this.emptyIters = 0;
        return handedOut;
      }
      this.emptyIters++;
      if (this.emptyIters >= this.config.numEmptyItersBeforeEarlyStop) {
        ctx.log("info", `[${ctx.taskName}] ${this.name}: ${this.emptyIters} rounds in a row found nothing new; the search ends`);
        return run.finish();
      }
    }
  }

  /** The run's next batch size, the batch before the polish batch (`polishTrials`) cut so that the polish has its trials. */
  private nextBatchSize(run: SearchRun): number {
    const size = run.nextBatchSize();
    const left = run.maxTrials - run.trialsIssued;
    const polish = this.config.polishTrials;
    return polish === 0 || left <= polish ? size : Math.min(size, left - polish);
  }

  /** Whether the next batch is the polish batch (`polishTrials`): the search's last trials. */
  private isPolishBatch(run: SearchRun): boolean {
    return this.config.polishTrials > 0 && run.maxTrials - run.trialsIssued <= this.config.polishTrials;
  }

  /** The population size in use (after "auto" is resolved by `preTuning`). */
  get resolvedPopulationSize(): number {
    return this.populationSize;
  }

  // ---- the steps -------------------------------------------------------------------------------

  /**
   * The database's best records of the workload, replayed with their decisions. A record is
   * replayed once per search (then remembered), since the database's best change slowly.
   */
  private async pickBestFromDatabase(run: SearchRun, count: number, round: RejectionTally): Promise<Candidate[]> {
    if (count <= 0) return [];
    const records = run.database.getTopK(run.workload, count).map((record) => ({ record, key: traceKeyOf(record.trace) }));
    const fresh = new Map<string, PlannedReplay | undefined>();
    for (const { record, key } of records) {
      if (!this.replayedRecords.has(key) && !fresh.has(key)) fresh.set(key, this.planRecord(run, record.trace, round));
    }
    const plans = [...fresh].filter((e): e is [string, PlannedReplay] => e[1] !== undefined);
    const replayed = await run.replayer.replayAll(
      plans.map(([, plan]) => plan),
      round,
    );
    for (const key of fresh.keys()) this.replayedRecords.set(key, undefined);
    plans.forEach(([key], k) => this.replayedRecords.set(key, replayed[k]));
    const out: Candidate[] = [];
    for (const { key } of records) {
      const c = this.replayedRecords.get(key);
      if (c === undefined) continue;
      run.markMeasured(c);
      out.push(c);
    }
    return out;
  }

  private planRecord(run: SearchRun, json: TraceJSON, round: RejectionTally): PlannedReplay | undefined {
    let trace: Trace;
    try {
      trace = Trace.fromJSON(json);
    } catch (err) {
      if (!(err instanceof TesseraError)) throw err;
      round.add("a database record's trace is unreadable");
      return undefined;
    }
    return run.replayer.planRecorded(trace);
  }

  /** `count` programs to evolve from: the seeds first (unless `withSeeds` is false), then fresh samples of the design spaces. */
  private async sampleInitPopulation(run: SearchRun, count: number, round: RejectionTally, withSeeds = true): Promise<Candidate[]> {
    const seeds = withSeeds ? await this.seedsWithGridFillers(run, round) : [];
    const out: Candidate[] = seeds.filter((c) => !run.isMeasured(c)).slice(0, count);
    const needed = Math.min(this.minUnmeasured, count);
    for (let rounds = 0; rounds < this.config.maxFailCount && (out.length < needed || rounds === 0); rounds++) {
      const plans = Array.from({ length: count }, () => run.replayer.planFresh(run.designSpaces));
      for (const c of await run.replayer.replayAll(plans, round)) if (c !== undefined) out.push(c);
    }
    return out.slice(0, count);
  }

  /** The cost model's best `count` of the fresh samples, in their sampled order (all of them when they are not more). */
  private bestOfPool(run: SearchRun, pool: readonly Candidate[], count: number): Candidate[] {
    if (pool.length <= count) return [...pool];
    const scores = this.predict(run, pool);
    const kept = pool
      .map((_, k) => k)
      .sort((a, b) => scores[b]! - scores[a]! || a - b)
      .slice(0, count)
      .sort((a, b) => a - b);
    return kept.map((k) => pool[k]!);
  }

  /** The best records of similar workloads and the priors, retargeted and replayed once per search (invalid ones dropped). */
  private seedsFromSimilar(run: SearchRun, round: RejectionTally): Candidate[] {
    if (this.similarSeeds === undefined) {
      const replayed = (traces: readonly Trace[]) => traces.flatMap((t) => run.replayer.replayRecorded(t, round) ?? []);
      const similar = replayed(
        seedsFromSimilarWorkloads(run.database, run.workload, run.designSpaces, this.config.similarSeeds, { targetName: run.ctx.target.name }),
      );
      this.priorSeeds = replayed(seedsFromPriors(run.workload, run.designSpaces, this.config.priorSeeds, priorsFor(run.ctx)));
      this.similarSeeds = [...similar, ...this.priorSeeds];
    }
    return this.similarSeeds;
  }

  /**
   * The seeds, and once per search on a GPU: each prior seed that launches fewer blocks than the
   * GPU has SMs brings its best-scored one-decision neighbour with more blocks (grid-filling.ts),
   * measured right after the priors themselves, within the `priorSeeds` count.
   */
  private async seedsWithGridFillers(run: SearchRun, round: RejectionTally): Promise<Candidate[]> {
    const seeds = this.seedsFromSimilar(run, round);
    const target = run.ctx.target;
    if (this.gridsFilled || target.kind !== "cuda") return seeds;
    this.gridsFilled = true;
    const seen = new Set(seeds.map((c) => c.hash));
    const fillers: Candidate[] = [];
    for (const seed of this.priorSeeds) {
      if (this.priorSeeds.length + fillers.length >= this.config.priorSeeds) break;
      if (!underfillsGrid(seed, target.multiProcessorCount)) continue;
      const neighbours = (await this.neighboursOf(run, seed, round)).map((n) => n.candidate).filter((c) => !seen.has(c.hash));
      const filler = bestGridFiller(seed, neighbours, (pool) => this.predict(run, pool));
      if (filler === undefined) continue;
      seen.add(filler.hash);
      fillers.push(filler);
    }
    this.priorSeeds = [...this.priorSeeds, ...fillers];
    this.similarSeeds = [...seeds, ...fillers];
    return this.similarSeeds;
  }

  /** The best-scored programs of the generations and climbs from `population`, best first, as many as a batch's picks draw on. */
  private async evolveWithCostModel(run: SearchRun, population: Candidate[], batch: number, round: RejectionTally): Promise<Scored[]> {
    const heap = new BestCandidates(this.heapCapacity(batch), (c) => run.isMeasured(c));
    let current = population;
    for (let iter = 0; ; iter++) {
      const scores = this.predict(run, current);
      current.forEach((c, k) => heap.offer(c, scores[k]!));
      if (iter >= this.config.geneticNumIters || current.length === 0) break;
      current = await this.nextGeneration(run, current, scores, round);
    }
    await this.climb(run, heap, round);
    return heap.scoredBestFirst();
  }

  /** How many of the best-scored programs a batch of `batch` picks from (its launch classes capped at `maxClassShare` each). */
  private heapCapacity(batch: number): number {
    return Math.ceil(batch / this.config.maxClassShare);
  }

  /**
   * The first round's further islands (`firstRoundIslands`): each evolves a population of its own
   * fresh samples (not the seeds, which the round's own population holds), concurrently with that
   * population and with each other, so that their replays share the workers rather than wait in
   * turn; the round merges their best into its own by score, island by island (the earlier
   * island's first among equals). Each draws from a stream of its own, forked in island order from
   * the round's start, and the search's own stream is not touched: where no island adds a program
   * to the picks, the whole search is the one-island search, draw for draw (a seed that did well
   * keeps every batch, not only the first). Not without a cost model: random scores would only push
   * the round's seeds out of the picks for other random programs.
   */
  private evolveIslands(run: SearchRun, batch: number, round: RejectionTally, roundStart: RandomEngine): Promise<Scored[][]> {
    if (this.config.firstRoundIslands <= 1 || run.costModel === undefined) return Promise.resolve([]);
    const streams = new RandomEngine(roundStart.clone().forkSeed() ^ ISLAND_STREAM);
    const islands = Array.from({ length: this.config.firstRoundIslands - 1 }, () => run.withRandomStream(new RandomEngine(streams.forkSeed())));
    return Promise.all(
      islands.map(async (island) => {
        const sampled = await this.sampleInitPopulation(island, Math.max(this.populationSize, this.config.freshPoolSize), round, false);
        const population = this.bestOfPool(island, sampled, this.populationSize);
        return population.length === 0 ? [] : this.evolveWithCostModel(island, population, batch, round);
      }),
    );
  }

  /**
   * Hill climbing on the cost model from the heap's favourites (model-climb.ts): every climb's
   * neighbours are replayed in one batch per step, and each of them is offered to the heap.
   * Not without a cost model (random scores have no slope).
   */
  private async climb(run: SearchRun, heap: BestCandidates, round: RejectionTally): Promise<void> {
    if (run.costModel === undefined) return;
    let points: Scored[] = climbStarts(heap.scoredBestFirst(), this.config.climbStarts);
    for (let step = 0; step < this.config.climbSteps && points.length > 0; step++) {
      const traces = points.flatMap((p, at) => neighbourTraces(p.candidate.trace).map((n) => ({ at, trace: n.trace })));
      const replayed = await run.replayer.replayAll(
        traces.map((t) => run.replayer.planRecorded(t.trace)),
        round,
      );
      const valid = replayed.flatMap((c, k) => (c === undefined ? [] : [{ candidate: c, at: traces[k]!.at }]));
      const scores = this.predict(
        run,
        valid.map((v) => v.candidate),
      );
      const neighbours: Scored[][] = points.map(() => []);
      valid.forEach((v, k) => {
        heap.offer(v.candidate, scores[k]!);
        neighbours[v.at]!.push({ candidate: v.candidate, score: scores[k]! });
      });
      points = climbStep(points, neighbours).filter((p): p is Scored => p !== undefined);
    }
  }

  private predict(run: SearchRun, population: readonly Candidate[]): number[] {
    if (run.costModel === undefined) return population.map(() => run.rng.uniform());
    const scores = run.costModel.predict(
      run.ctx,
      population.map((c) => scoredCandidateOf(c, run.argsInfo)),
    );
    if (scores.length !== population.length) {
      throw new MetaScheduleError(`${this.name}: cost model ${run.costModel.name} gave ${scores.length} scores for ${population.length} candidates`);
    }
    return scores.map((s) => (Number.isFinite(s) && s > 0 ? s : 0));
  }

  /**
   * The next generation, slot by slot as TVM's, but in waves: each open slot draws tries until one
   * needs a replay (a mutation or a crossover) or settles without one (a copy, or no tries left);
   * the wave's replays run as one batch, and a slot whose child is invalid or its parent's program
   * again draws its next try in the next wave. Draws happen in slot order within a wave.
   */
  private async nextGeneration(run: SearchRun, population: readonly Candidate[], scores: readonly number[], round: RejectionTally): Promise<Candidate[]> {
    const mutators = run.mutators.filter((m) => m.probability > 0);
    const breeder: Breeder = {
      population,
      parents: new WeightedSampler(scores),
      mutators,
      mutatorSampler: mutators.length > 0 ? new WeightedSampler(mutators.map((m) => m.probability)) : undefined,
      copied: new Uint8Array(population.length),
    };
    const next = new Array<Candidate | undefined>(this.populationSize);
    const slots = Array.from({ length: this.populationSize }, () => ({ fails: 0, parent: 0 }));
    let open = slots.map((_, k) => k);
    while (open.length > 0) {
      const wave: { slot: number; child: Child }[] = [];
      for (const k of open) {
        const slot = slots[k]!;
        for (; next[k] === undefined && slot.fails <= this.config.geneticMaxFailCount; slot.fails++) {
          const tried = this.drawTry(run, breeder, round);
          slot.parent = tried.parent;
          if (tried.copy !== undefined) next[k] = tried.copy;
          else if (tried.child !== undefined) {
            wave.push({ slot: k, child: tried.child });
            break;
          }
        }
        if (next[k] === undefined && slot.fails > this.config.geneticMaxFailCount) next[k] = population[slot.parent]!;
      }
      const replayed = await run.replayer.replayAll(
        wave.map((w) => w.child.plan),
        round,
      );
      open = [];
      wave.forEach(({ slot: k, child }, i) => {
        const c = this.unlessUnchanged(replayed[i], child.parents, round);
        if (c !== undefined) next[k] = c;
        else {
          slots[k]!.fails++;
          open.push(k);
        }
      });
    }
    return next.map((c, k) => c ?? population[slots[k]!.parent]!);
  }

  /** One try of a slot: a parent drawn, then a crossover or a mutation to replay, a copy, or nothing. */
  private drawTry(run: SearchRun, b: Breeder, round: RejectionTally): { parent: number; copy?: Candidate; child?: Child } {
    const { rng, ctx } = run;
    const parent = b.parents.sample(rng);
    if (this.config.crossoverProb > 0 && rng.uniform() < this.config.crossoverProb) {
      const child = this.crossover(run, b.population, parent, b.parents.sample(rng), round);
      return child === undefined ? { parent } : { parent, child };
    }
    if (b.mutatorSampler !== undefined && rng.uniform() < this.config.geneticMutateProb) {
      const mutator = b.mutators[b.mutatorSampler.sample(rng)]!.mutator;
      let mutated: Trace | undefined;
      try {
        mutated = mutator.apply(b.population[parent]!.trace, rng, ctx);
      } catch (err) {
        if (!(err instanceof TesseraError)) throw err;
        round.add(`mutator ${mutator.name} failed`);
        return { parent };
      }
      if (mutated === undefined) {
        round.add(`mutator ${mutator.name} found nothing to change`);
        return { parent };
      }
      return { parent, child: { plan: run.replayer.planRecorded(mutated), parents: [b.population[parent]!] } };
    }
    if (b.copied[parent] === 0) {
      b.copied[parent] = 1;
      return { parent, copy: b.population[parent]! };
    }
    return { parent };
  }

  /** The structure of one parent with the other's knobs (crossover.ts), to replay; undefined when nothing new comes of it. */
  private crossover(run: SearchRun, population: readonly Candidate[], structure: number, knobs: number, round: RejectionTally): Child | undefined {
    const a = population[structure]!;
    const b = population[knobs]!;
    const child = a.hash === b.hash ? undefined : crossoverStructureAndKnobs(a.trace, b.trace);
    if (child === undefined) {
      round.add(CROSSOVER_FOUND_NOTHING);
      return undefined;
    }
    return { plan: run.replayer.planRecorded(child), parents: [a, b] };
  }

  /** `child`, unless it is one of its parents' programs again (a decision that changed nothing, as a fetch order of an unstaged fetch). */
  private unlessUnchanged(child: Candidate | undefined, parents: readonly Candidate[], round: RejectionTally): Candidate | undefined {
    if (child === undefined || !parents.some((p) => p.hash === child.hash)) return child;
    round.add(SAME_PROGRAM_AS_PARENT);
    return undefined;
  }

  /**
   * Up to `slots` unmeasured neighbours of the best measured programs (`measured`, best first):
   * the first incumbent's while it has enough, then the next's. Each changed decision's
   * best-scored neighbour comes before any decision's second, so a batch tries many knobs.
   */
  private async pickNeighbours(run: SearchRun, measured: readonly Candidate[], slots: number, round: RejectionTally): Promise<Candidate[]> {
    if (slots <= 0) return [];
    const pool: { c: Candidate; incumbent: number; group: string }[] = [];
    const seen = new Set<string>();
    for (const [incumbent, program] of measured.slice(0, MAX_INCUMBENTS).entries()) {
      for (const n of await this.neighboursOf(run, program, round)) {
        if (run.isMeasured(n.candidate) || seen.has(n.candidate.hash)) continue;
        seen.add(n.candidate.hash);
        pool.push({ c: n.candidate, incumbent, group: n.group });
      }
      if (pool.length >= slots) break;
    }
    if (pool.length === 0) return [];
    const scores = this.predict(
      run,
      pool.map((p) => p.c),
    );
    const byScore = pool.map((p, k) => ({ ...p, score: scores[k]! })).sort((a, b) => b.score - a.score);
    const taken = new Map<string, number>();
    const ranked = byScore.map((p) => {
      const group = `${p.incumbent}/${p.group}`;
      const rank = taken.get(group) ?? 0;
      taken.set(group, rank + 1);
      return { ...p, rank };
    });
    // The best incumbent's neighbours first; among them one per decision before any decision's second.
    ranked.sort((a, b) => a.incumbent - b.incumbent || a.rank - b.rank || b.score - a.score);
    return ranked.slice(0, slots).map((p) => p.c);
  }

  /** The valid one-decision neighbours of a measured program, replayed once per search (the invalid ones tallied then). */
  private neighboursOf(run: SearchRun, incumbent: Candidate, round: RejectionTally): Promise<readonly Neighbour[]> {
    const traces = (trace: Trace) => neighbourTraces(trace).map((n) => ({ trace: n.trace, group: `decision ${n.decision}` }));
    return this.replayedAround(run, incumbent, round, this.neighbourhoods, traces);
  }

  /** The traces `around` gives of a measured program, replayed once per search (remembered in `cache`); the valid ones, not its own program. */
  private async replayedAround(
    run: SearchRun,
    incumbent: Candidate,
    round: RejectionTally,
    cache: Map<string, readonly Neighbour[]>,
    around: (trace: Trace) => readonly { trace: Trace; group: string }[],
  ): Promise<readonly Neighbour[]> {
    const cached = cache.get(incumbent.traceKey);
    if (cached !== undefined) return cached;
    const out: Neighbour[] = [];
    const neighbours = around(incumbent.trace);
    const replayed = await run.replayer.replayAll(
      neighbours.map((n) => run.replayer.planRecorded(n.trace)),
      round,
    );
    neighbours.forEach((n, k) => {
      const c = replayed[k];
      if (c === undefined) return;
      if (c.hash === incumbent.hash) round.add(NEIGHBOUR_SAME_PROGRAM);
      else out.push({ candidate: c, group: n.group });
    });
    cache.set(incumbent.traceKey, out);
    return out;
  }

  private pickWithEpsGreedy(
    run: SearchRun,
    unmeasured: readonly Candidate[],
    ranked: readonly Candidate[],
    batch: number,
    round: RejectionTally,
    first: readonly Candidate[] = [],
  ): Candidate[] {
    const numRands = Math.floor((batch - first.length) * this.config.epsGreedy);
    const numBests = batch - numRands;
    const cap = Math.max(1, Math.ceil((numBests - first.length) * this.config.maxClassShare));
    const bests = [...first, ...capClassShare(ranked, numBests - first.length, cap, (c) => c.launchClass)];
    const rands = randomPermutation(unmeasured.length, run.rng).map((k) => unmeasured[k]!);
    const picks: Candidate[] = [];
    const picked = new Set<string>();
    let nextBest = 0;
    let nextRand = 0;
    while (picks.length < batch) {
      const fromBests = picks.length < numBests;
      let c: Candidate | undefined;
      if (fromBests) c = nextBest < bests.length ? bests[nextBest++] : rands[nextRand++];
      else c = nextRand < rands.length ? rands[nextRand++] : bests[nextBest++];
      if (c === undefined) break;
      if (run.isMeasured(c)) round.add(DUPLICATE_OF_MEASURED);
      else if (picked.has(c.hash)) round.add(DUPLICATE_IN_BATCH);
      else {
        picks.push(c);
        picked.add(c.hash);
      }
    }
    return picks;
  }
}

function checkConfig(c: EvolutionarySearchConfig): void {
  const fail = (what: string) => new MetaScheduleError(`evolutionarySearch: ${what}`);
  const positiveInt = (name: keyof EvolutionarySearchConfig, min: number) => {
    const v = c[name];
    if (!(typeof v === "number" && Number.isSafeInteger(v) && v >= min)) throw fail(`${name} must be an integer ≥ ${min}, got ${String(v)}`);
  };
  const probability = (name: keyof EvolutionarySearchConfig) => {
    const v = c[name];
    if (!(typeof v === "number" && v >= 0 && v <= 1)) throw fail(`${name} must be a number in [0, 1], got ${String(v)}`);
  };
  if (c.populationSize !== "auto") positiveInt("populationSize", 1);
  if (c.initMinUnmeasured !== "auto") positiveInt("initMinUnmeasured", 0);
  positiveInt("freshPoolSize", 0);
  positiveInt("maxFailCount", 1);
  positiveInt("geneticNumIters", 0);
  positiveInt("geneticMaxFailCount", 0);
  positiveInt("numEmptyItersBeforeEarlyStop", 1);
  probability("initMeasuredRatio");
  probability("geneticMutateProb");
  probability("crossoverProb");
  probability("epsGreedy");
  probability("maxClassShare");
  probability("neighbourShare");
  probability("finalNeighbourShare");
  positiveInt("similarSeeds", 0);
  positiveInt("priorSeeds", 0);
  positiveInt("climbStarts", 0);
  positiveInt("climbSteps", 0);
  positiveInt("firstRoundIslands", 1);
  positiveInt("polishTrials", 0);
  if (c.maxClassShare === 0) throw fail("maxClassShare must be above 0 (1: no cap)");
}
