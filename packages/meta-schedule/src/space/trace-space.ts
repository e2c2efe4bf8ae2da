/**
 * Design spaces given as recorded traces (TVM's trace-based spaces): each trace — JSON in our
 * format or TVM's, or a parsed `Trace` — is replayed on a fresh schedule of the workload. The
 * autograder uses it for student spaces: it samples the untrusted function in a sandbox and hands
 * the traces over, so no student code runs in the tuner.
 */
import { TesseraError } from "@tessera/ir";
import { Schedule, Trace } from "@tessera/schedule";
import { SpaceGenerationError } from "../errors.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import type { Postproc } from "../interfaces/postproc.js";
import type { TuneContext } from "../tune-context.js";
import type { SpaceOptions } from "./schedule-fn.js";
import { checkedMutators, checkedPostprocs, initializeSpaceComponents } from "./space-components.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";

export class TraceSpace implements SpaceGenerator {
  readonly name: string;
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];
  private readonly traces: readonly Trace[];

  /** `traces`: JSON texts, parsed JSON documents, or `Trace`s; a malformed one is reported here. */
  constructor(traces: readonly unknown[], opts: SpaceOptions = {}) {
    this.name = opts.name ?? "traceSpace";
    if (!Array.isArray(traces) || traces.length === 0) throw new SpaceGenerationError(`space ${this.name}: expected a non-empty list of traces`);
    this.traces = traces.map((t, k) => {
      if (t instanceof Trace) return t;
      try {
        return Trace.fromJSON(t);
      } catch (err) {
        if (!(err instanceof TesseraError)) throw err;
        throw new SpaceGenerationError(`space ${this.name}: trace ${k} is not a valid trace: ${err.message}`, { cause: err });
      }
    });
    this.postprocs = checkedPostprocs(opts.postprocs, this.name);
    this.mutators = checkedMutators(opts.mutators, this.name);
  }

  initialize(ctx: TuneContext): void {
    initializeSpaceComponents(ctx, this);
  }

  generateDesignSpace(ctx: TuneContext): Schedule[] {
    return this.traces.map((trace, k) => {
      const sch = new Schedule(ctx.workload.func, { seed: ctx.rng.forkSeed() });
      try {
        trace.applyTo(sch, { removePostproc: true });
      } catch (err) {
        if (!(err instanceof TesseraError)) throw err;
        const which = this.traces.length === 1 ? "" : ` (trace ${k} of space ${this.name})`;
        throw new SpaceGenerationError(`the space does not apply to this workload (${ctx.workload.name})${which}: ${err.message}`, { cause: err });
      }
      return sch;
    });
  }
}
