/**
 * Runs the student's module as the handout does: `manualSchedule(size)` returning a Schedule (the
 * assignment's form), or `schedule(sch)` applied to the chosen workload. Returns the schedule with
 * its steps, or the error with the student's line.
 */
import type { PrimFunc } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import type { Step, StudentError } from "../protocol.js";
import { type StepRecorder, recordSteps } from "./record-steps.js";
import { loadStudentModule, studentLines } from "./student-module.js";
import { TranspileError, transpile } from "./transpile.js";

export interface StudentRun {
  readonly steps: readonly Step[];
  readonly error: StudentError | undefined;
  /** The final schedule and the function it started from; undefined when the code failed before scheduling. */
  readonly scheduled: { readonly func: PrimFunc; readonly original: PrimFunc } | undefined;
}

let recorder: StepRecorder | undefined;

/** The code's schedule entry: what it returns or schedules, for the workload built by `workload`. */
function runEntry(exports: Record<string, unknown>, workload: () => PrimFunc, size: number): Schedule {
  const manual = exports.manualSchedule;
  if (typeof manual === "function") {
    const sch: unknown = manual(size);
    if (!(sch instanceof Schedule)) throw new TypeError(`manualSchedule(${size}) must return a Schedule, got ${describe(sch)}`);
    return sch;
  }
  const apply = exports.schedule;
  if (typeof apply === "function") {
    const sch = new Schedule(workload());
    apply(sch);
    return sch;
  }
  throw new TypeError("the module exports neither manualSchedule(size) nor schedule(sch)");
}

function describe(value: unknown): string {
  return value === null ? "null" : typeof value === "object" ? (value.constructor?.name ?? "an object") : typeof value;
}

function studentError(err: unknown, active: StepRecorder, lineOf: (stack: string | undefined) => number | undefined): StudentError {
  if (err instanceof TranspileError) return { name: err.name, message: err.message, line: err.line };
  if (err instanceof Error) return { name: err.name, message: err.message, line: active.lineOfError(err) ?? lineOf(err.stack) };
  return { name: "Error", message: `threw ${String(err)}`, line: undefined };
}

export function runStudent(code: string, workload: () => PrimFunc, size: number): StudentRun {
  const lineOf = (stack: string | undefined) => studentLines(stack)[0];
  recorder ??= recordSteps(lineOf);
  const active = recorder;
  active.start();
  try {
    const exports = loadStudentModule(transpile(code));
    const sch = runEntry(exports, workload, size);
    const original = active.originalOf(sch) ?? sch.func;
    return { steps: active.stepsOf(sch), error: undefined, scheduled: { func: sch.func, original } };
  } catch (err) {
    // The schedule the code worked on is not reachable from here: the recorder kept its steps.
    return { steps: active.lastSteps(), error: studentError(err, active, lineOf), scheduled: undefined };
  } finally {
    active.stop();
  }
}
