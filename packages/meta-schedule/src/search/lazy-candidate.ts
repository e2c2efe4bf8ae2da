/**
 * A candidate replayed in a search worker thread, as the search's thread keeps it: its identity,
 * analytic estimate and launch shape at once, its trace as JSON text, parsed only when asked for
 * (a parent to mutate), and its function (serialised by the worker) read back and the `Schedule`
 * built only when asked for (a program handed out, a cost model that reads it). Most candidates
 * of a generation are only scored, and parsing every reply's trace, reading back its function
 * (~0.45 ms for a 2048³ gemm) and indexing it made the search's thread the bottleneck of a search
 * on many workers.
 */
import { deserialize } from "node:v8";
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

export class LazyCandidate implements Candidate {
  #sch: Schedule | undefined;
  #trace: Trace | undefined;

  constructor(
    /** The function, or its `v8.serialize`d bytes (from a worker), read back when the schedule is built. */
    private readonly func: PrimFunc | Uint8Array,
    private readonly traceText: string,
    readonly hash: string,
    readonly traceKey: string,
    readonly estimate: LatencyEstimate | undefined,
    readonly launchClass: string | undefined,
  ) {}

  get trace(): Trace {
    if (this.#trace === undefined) this.#trace = this.#sch?.trace ?? Trace.fromJSON(JSON.parse(this.traceText));
    return this.#trace;
  }

  get sch(): Schedule {
    if (this.#sch === undefined) {
      const sch = new Schedule(this.func instanceof Uint8Array ? (deserialize(this.func) as PrimFunc) : this.func);
      const trace = this.trace;
      for (const inst of trace.instructions) sch.trace.append(inst, trace.getDecision(inst));
      this.#sch = sch;
    }
    return this.#sch;
  }

  /** Whether the function has been read back (the schedule built). */
  get built(): boolean {
    return this.#sch !== undefined;
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
