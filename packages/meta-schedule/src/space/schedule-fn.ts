/**
 * A design space written as a function (TVM's `ScheduleFn`), run several times so that each distinct
 * trace shape is a design space of its own (docs/architecture/meta-schedule-notes.md).
 */
import { TesseraError } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { SpaceGenerationError } from "../errors.js";
import type { WeightedMutator } from "../interfaces/mutator.js";
import type { Postproc } from "../interfaces/postproc.js";
import type { TuneContext } from "../tune-context.js";
import { checkedMutators, checkedPostprocs, describeValue, initializeSpaceComponents } from "./space-components.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";

export type ScheduleFn = (sch: Schedule) => void | Schedule | readonly Schedule[];

/** Runs of the function whose traces are compared for distinct shapes (the first run always counts). */
export const DEFAULT_STRUCTURE_SAMPLES = 16;

export interface ScheduleFnSpaceOptions extends SpaceOptions {
  /** Runs of the function, with different seeds, to collect the distinct trace shapes (default 16; 1 = TVM's single run). */
  readonly structureSamples?: number;
}

/** The trace's instructions without its decisions: equal for two runs that took the same steps. */
export function traceShapeKey(sch: Schedule): string {
  const { instructions } = sch.trace.toJSON();
  return JSON.stringify(instructions);
}

/** What every space carries besides its schedules (TVM's space generator arguments). */
export interface SpaceOptions {
  /** Name in logs (default: the function's name, or the kind of space). */
  readonly name?: string;
  /** Run in order after every replay; none by default (the tuning entry point passes the target's defaults). */
  readonly postprocs?: readonly Postproc[];
  /** Mutators of the evolutionary search with their probabilities; none by default. */
  readonly mutators?: readonly WeightedMutator[];
}

export class ScheduleFnSpace implements SpaceGenerator {
  readonly name: string;
  readonly postprocs: readonly Postproc[];
  readonly mutators: readonly WeightedMutator[];

  private readonly structureSamples: number;

  constructor(
    private readonly fn: ScheduleFn,
    opts: ScheduleFnSpaceOptions = {},
  ) {
    this.structureSamples = opts.structureSamples ?? DEFAULT_STRUCTURE_SAMPLES;
    if (!Number.isInteger(this.structureSamples) || this.structureSamples < 1) {
      throw new SpaceGenerationError(`ScheduleFnSpace: structureSamples must be a positive integer, got ${String(opts.structureSamples)}`);
    }
    if (typeof fn !== "function") throw new SpaceGenerationError(`ScheduleFnSpace expects a function (sch: Schedule) => …, got ${describeValue(fn)}`);
    this.name = opts.name ?? (fn.name !== "" ? fn.name : "scheduleFn");
    this.postprocs = checkedPostprocs(opts.postprocs, this.name);
    this.mutators = checkedMutators(opts.mutators, this.name);
  }

  initialize(ctx: TuneContext): void {
    initializeSpaceComponents(ctx, this);
  }

  generateDesignSpace(ctx: TuneContext): Schedule[] {
    const spaces: Schedule[] = [];
    const shapes = new Set<string>();
    for (let run = 0; run < this.structureSamples; run++) {
      // Only the first run may fail loudly: later runs just look for other shapes.
      let schedules: Schedule[];
      try {
        schedules = this.runOnce(ctx);
      } catch (err) {
        if (run === 0 || !(err instanceof SpaceGenerationError)) throw err;
        continue;
      }
      for (const sch of schedules) {
        const key = traceShapeKey(sch);
        if (shapes.has(key)) continue;
        shapes.add(key);
        spaces.push(sch);
      }
    }
    return spaces;
  }

  /** One call of the function on a fresh traced schedule of the workload. */
  private runOnce(ctx: TuneContext): Schedule[] {
    const sch = new Schedule(ctx.workload.func, { seed: ctx.rng.forkSeed() });
    let returned: unknown;
    try {
      returned = this.fn(sch);
    } catch (err) {
      const cause = err instanceof Error ? err.message : String(err);
      throw new SpaceGenerationError(`the space function ${this.name} failed on workload ${ctx.workload.name}: ${cause}`, { cause: err });
    }
    const spaces = scheduleList(returned, sch, this.name);
    spaces.forEach((s, k) => checkAppliesToWorkload(s, ctx, spaces.length === 1 ? this.name : `${this.name} (schedule ${k})`));
    return spaces;
  }
}

/**
 * A returned schedule must be one of the workload: its trace has to replay on it (a function
 * that builds its own Schedule of another function would otherwise fail every sample later).
 */
function checkAppliesToWorkload(sch: Schedule, ctx: TuneContext, what: string): void {
  try {
    sch.trace.applyTo(new Schedule(ctx.workload.func, { seed: 0 }), { removePostproc: true });
  } catch (err) {
    if (!(err instanceof TesseraError)) throw err;
    throw new SpaceGenerationError(
      `the space does not apply to this workload (${ctx.workload.name}): the trace of ${what} does not replay on it: ${err.message}`,
      { cause: err },
    );
  }
}

/** The schedules a space function handed back: `undefined` means the one it was given. */
function scheduleList(returned: unknown, given: Schedule, name: string): Schedule[] {
  if (returned === undefined) return [given];
  if (returned instanceof Schedule) return [returned];
  if (Array.isArray(returned)) {
    if (returned.length === 0) throw new SpaceGenerationError(`the space function ${name} returned an empty list of schedules`);
    returned.forEach((s: unknown, k) => {
      if (!(s instanceof Schedule))
        throw new SpaceGenerationError(`the space function ${name} returned a list whose element ${k} is ${describeValue(s)}, not a Schedule`);
    });
    return returned as Schedule[];
  }
  throw new SpaceGenerationError(`the space function ${name} returned ${describeValue(returned)}; expected nothing, a Schedule or a list of Schedules`);
}
