/**
 * Records the IR after each primitive a schedule applies, with the student's line that called it:
 * wraps the public methods of Schedule.prototype (in the worker's own copy of the package) and
 * keeps a step whenever an outermost call added instructions to the trace. Lookups (getBlock,
 * getLoops, …) add instructions too but change nothing, so they are not steps.
 * (The methods are TypeScript-private, not `#private`, so the prototype holds them all.)
 */
import type { PrimFunc } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import type { Step } from "../protocol.js";

/** Methods that add lookups to the trace or read the schedule: never a step. */
const LOOKUPS = new Set([
  "get",
  "getBlock",
  "getLoops",
  "getChildBlocks",
  "getProducers",
  "getConsumers",
  "script",
  "show",
  "copy",
  "seed",
  "forkSeed",
  "workOn",
]);

export interface StepRecorder {
  /** The steps of `sch`, starting with its IR before the first primitive. */
  stepsOf(sch: Schedule): Step[];
  /** The function `sch` started from (undefined when it never applied a primitive). */
  originalOf(sch: Schedule): PrimFunc | undefined;
  /** The steps of the schedule that last applied a primitive since `start` (for code that threw halfway). */
  lastSteps(): Step[];
  /** Records from now on (until `stop`), forgetting the last steps. Outside, the wrappers only call through. */
  start(): void;
  stop(): void;
  /** The student's line of the primitive call that threw `err` (its own stack may be cut before the student's frames). */
  lineOfError(err: unknown): number | undefined;
}

/** Instruments Schedule.prototype once for this realm; `lineOf` maps a call's stack to an editor line. */
export function recordSteps(lineOf: (stack: string | undefined) => number | undefined): StepRecorder {
  const steps = new WeakMap<Schedule, Step[]>();
  const originals = new WeakMap<Schedule, PrimFunc>();
  let depth = 0;
  let last: Step[] = [];
  let recording = false;
  const errorLines = new WeakMap<object, number | undefined>();
  const nested = <T>(f: () => T): T => {
    depth++;
    try {
      return f();
    } finally {
      depth--;
    }
  };
  const proto = Schedule.prototype as unknown as Record<string, unknown>;
  for (const name of Object.getOwnPropertyNames(Schedule.prototype)) {
    const descriptor = Object.getOwnPropertyDescriptor(Schedule.prototype, name);
    const original = descriptor?.value;
    if (name === "constructor" || typeof original !== "function") continue;
    // Every method is wrapped so that the calls primitives make to each other (and to internals) are not steps.
    proto[name] = function (this: Schedule, ...args: unknown[]): unknown {
      if (!recording) return original.apply(this, args);
      if (depth > 0 || LOOKUPS.has(name)) return nested(() => original.apply(this, args));
      let own = steps.get(this);
      if (own === undefined) {
        originals.set(this, this.func);
        own = [{ primitive: "initial", line: undefined, script: this.script() }];
        steps.set(this, own);
      }
      last = own;
      const before = this.trace.instructions.length;
      const stack = new Error().stack;
      try {
        return nested(() => original.apply(this, args));
      } catch (err) {
        if (typeof err === "object" && err !== null && !errorLines.has(err)) errorLines.set(err, lineOf(stack));
        throw err;
      } finally {
        if (this.trace.instructions.length > before) own.push({ primitive: name, line: lineOf(stack), script: this.script() });
      }
    };
  }
  return {
    stepsOf: (sch) => steps.get(sch) ?? [{ primitive: "initial", line: undefined, script: sch.script() }],
    originalOf: (sch) => originals.get(sch),
    lastSteps: () => last,
    start: () => {
      last = [];
      recording = true;
    },
    stop: () => {
      recording = false;
    },
    lineOfError: (err) => (typeof err === "object" && err !== null ? errorLines.get(err) : undefined),
  };
}
