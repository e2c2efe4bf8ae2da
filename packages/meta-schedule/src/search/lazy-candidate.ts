/**
 * A candidate replayed in a search worker thread, as the search's thread keeps it: its identity,
 * analytic estimate and launch shape at once, its trace as JSON text, parsed only when asked for
 * (a parent to mutate), and the `Schedule` built only when asked for (a program handed out, a cost
 * model that reads it). Most candidates of a generation are only scored, and parsing every reply's
 * trace and indexing its function made the search's thread the bottleneck of a search on many
 * workers. The function itself comes later: the search asks the workers for the functions of the
 * candidates it hands out (`provide`, candidate-replayer.ts's `materialize`); a reader of `sch`
 * before that has the trace replayed again in its own thread (`rebuild`).
 */
import { MetaScheduleError } from "../errors.js";
import type { PrimFunc } from "@tessera/ir";
import { Schedule, Trace } from "@tessera/schedule";
import type { ArgInfo } from "../arg-info.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { LatencyEstimate } from "../latency-model/latency-model.js";

/** A replayed, postprocessed program, the structural hash of its function, and the digest of its trace. */
export interface Candidate {
  readonly sch: Schedule;
  /** Its trace (`sch.trace`), which mutators and crossover read without the schedule being built. */
  readonly trace: Trace;
  readonly hash: string;
  readonly traceKey: string;
  /** The analytic model's estimate, when computed where the candidate was replayed. */
  readonly estimate?: LatencyEstimate | undefined;
  /** The launch shape of its kernels (launch-classes.ts), undefined when it was not lowered. */
  readonly launchClass?: string | undefined;
}

/** Replays a candidate's full trace (every decision recorded) in the calling thread: its postprocessed function. */
export type RebuildFunc = (trace: Trace) => PrimFunc;

export class LazyCandidate implements Candidate {
  #sch: Schedule | undefined;
  #trace: Trace | undefined;
  #func: PrimFunc | undefined;

  constructor(
    func: PrimFunc | undefined,
    readonly traceText: string,
    readonly hash: string,
    readonly traceKey: string,
    readonly estimate: LatencyEstimate | undefined,
    readonly launchClass: string | undefined,
    private readonly rebuild: RebuildFunc,
  ) {
    this.#func = func;
  }

  /** Whether the function is here (came with the reply, or `provide`d): reading `sch` then replays nothing. */
  get hasFunc(): boolean {
    return this.#func !== undefined;
  }

  /** The function of this candidate, replayed elsewhere from its trace; it must be the same program (same structural hash). */
  provide(func: PrimFunc, hash: string): void {
    if (hash !== this.hash)
      throw new MetaScheduleError(
        `search: replaying candidate ${this.traceKey}'s trace again gave another program (structural hash ${hash}, was ${this.hash})`,
      );
    this.#func ??= func;
  }

  get trace(): Trace {
    if (this.#trace === undefined) this.#trace = this.#sch?.trace ?? Trace.fromJSON(JSON.parse(this.traceText));
    return this.#trace;
  }

  get sch(): Schedule {
    if (this.#sch === undefined) {
      this.#func ??= this.rebuild(this.trace);
      const sch = new Schedule(this.#func);
      const trace = this.trace;
      for (const inst of trace.instructions) sch.trace.append(inst, trace.getDecision(inst));
      this.#sch = sch;
    }
    return this.#sch;
  }
}

/** A candidate as the cost model reads it: its estimate at once, its schedule built only if the model reads that. */
export function scoredCandidateOf(c: Candidate, argsInfo: readonly ArgInfo[]): MeasureCandidate {
  return {
    get sch() {
      return c.sch;
    },
    argsInfo,
    ...(c.estimate === undefined ? {} : { estimate: c.estimate }),
  };
}
