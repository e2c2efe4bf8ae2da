/**
 * Random search by re-running the space generator (TVM's `ReplayFunc`): every candidate is a
 * fresh design space — the space function run again with a new seed — plus the postprocessors.
 * Unlike ReplayTrace it follows a space function whose *structure* depends on what it sampled
 * (`if (sch.get(v) === 1) sch.split(…)`), which a replayed trace cannot: the trace keeps the
 * branch taken when it was recorded.
 */
import { SpaceGenerationError } from "../errors.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";
import type { TuneContext } from "../tune-context.js";
import type { Candidate } from "./candidate-replayer.js";
import type { RejectionTally } from "./rejection-tally.js";
import type { SearchRun } from "./search-run.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { PreTuningOptions } from "../interfaces/search-strategy.js";
import { SearchStrategyBase, checkMaxFailCount, randomBatch } from "./strategy-base.js";

export interface ReplayFuncConfig {
  /** Failed tries per slot before the batch is cut short. */
  readonly maxFailCount: number;
}

export class ReplayFuncStrategy extends SearchStrategyBase {
  readonly name = "replayFunc";
  readonly config: ReplayFuncConfig;
  private space: SpaceGenerator | undefined;

  constructor(config: Partial<ReplayFuncConfig> = {}) {
    super();
    this.config = { maxFailCount: 100, ...config };
    checkMaxFailCount(this.name, this.config.maxFailCount);
  }

  protected override started(_run: SearchRun, opts: PreTuningOptions): void {
    this.space = opts.space;
  }

  generateMeasureCandidates(_ctx: TuneContext): MeasureCandidate[] | undefined {
    const run = this.run("generateMeasureCandidates");
    return randomBatch(run, this.name, this.config.maxFailCount, (round) => this.sampleSpaceFunction(run, round));
  }

  /** One design space of a fresh run of the space generator, postprocessed. */
  private sampleSpaceFunction(run: SearchRun, round: RejectionTally): Candidate | undefined {
    let spaces;
    try {
      spaces = this.space!.generateDesignSpace(run.ctx);
    } catch (err) {
      if (!(err instanceof SpaceGenerationError)) throw err;
      round.add("the space function failed");
      run.ctx.log("debug", `[${run.ctx.taskName}] ${this.name}: ${err.message}`);
      return undefined;
    }
    // The function's trace, replayed as recorded, is the program it built; the replay runs the
    // postprocessors the one way every strategy does.
    return run.replayer.replayRecorded(spaces[run.rng.int(0, spaces.length)]!.trace, round);
  }
}
