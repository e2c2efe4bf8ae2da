/**
 * Runs inside the V8 isolate, beside the student's code: loads the student's module and runs each
 * job (call an exported function on a fresh schedule), answering with the recorded trace. There is
 * no channel here: the host (host/host.ts) calls `load` and `runJob` through references it took
 * before any student code ran, and sends on what they return. Nothing here is trusted by the grader
 * beyond "a trace to replay".
 */
import { parsePrimFunc } from "@tessera/ir";
import { BlockRV, Schedule } from "@tessera/schedule";
import type { ErrorInfo, Job, JobArg, JobResult, LoadMessage } from "../protocol.js";

type StudentModule = Record<string, unknown>;

/** What the host calls; every answer is a JSON string (copied out of the isolate as plain text). */
export interface Harness {
  /** Imports the student's module (its top-level code runs now): a LoadMessage. */
  load(): Promise<string>;
  /** Runs one job (a Job as JSON): a JobResult. */
  runJob(jobJson: string): Promise<string>;
}

export function createHarness(fileLabel: string, importStudent: () => Promise<StudentModule>): Harness {
  // Taken now, before student code can replace them on the shared globals.
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const now = Date.now;
  let mod: StudentModule | undefined;
  let previous: Schedule | undefined;
  return {
    async load() {
      let message: LoadMessage;
      try {
        mod = await importStudent();
        message = { loaded: true, exports: Object.keys(mod).sort() };
      } catch (err) {
        message = { loaded: false, error: errorInfo(err) };
      }
      return stringify(message);
    },
    async runJob(jobJson) {
      const job = parse(jobJson) as Job;
      const started = now();
      let sch: Schedule | undefined;
      let result: JobResult;
      try {
        if (mod === undefined) throw namedError("GraderError", "the student module is not loaded");
        const fn = mod[job.call];
        if (typeof fn !== "function") {
          const what = fn === undefined ? "does not export" : `exports a ${typeof fn}, not a function, named`;
          throw namedError("MissingExport", `${fileLabel} ${what} \`${job.call}\``);
        }
        sch = startSchedule(job, previous);
        const schedule = sch;
        const args = job.args.map((a) => resolveArg(schedule, a, job.call));
        const returned: unknown = await (fn as (...xs: unknown[]) => unknown)(schedule, ...args);
        result = { id: job.id, ok: true, trace: schedule.trace.toJSON(), returnedBlocks: returnedBlockNames(schedule, returned), millis: now() - started };
        previous = sch;
      } catch (err) {
        result = { id: job.id, ok: false, error: errorInfo(err), trace: safeTrace(sch), millis: now() - started };
        previous = undefined;
      }
      return stringify(result);
    },
  };
}

function startSchedule(job: Job, previous: Schedule | undefined): Schedule {
  if (job.start.kind === "previous") {
    if (previous === undefined) throw namedError("GraderError", `job ${job.id}: there is no successful previous job to continue from`);
    return previous;
  }
  const func = parsePrimFunc(job.start.script);
  return new Schedule(func, job.seed === undefined ? {} : { seed: job.seed });
}

function resolveArg(sch: Schedule, arg: JobArg, call: string): unknown {
  if (typeof arg === "number") return arg;
  try {
    return sch.getBlock(arg.block);
  } catch {
    throw namedError("GraderError", `cannot call ${call}: the block "${arg.block}" it receives does not exist (an earlier task did not create it)`);
  }
}

function returnedBlockNames(sch: Schedule, value: unknown): string[] | undefined {
  const values = Array.isArray(value) ? value : [value];
  const names: string[] = [];
  for (const v of values) {
    if (!(v instanceof BlockRV)) return undefined;
    try {
      names.push(sch.get(v).name);
    } catch {
      return undefined;
    }
  }
  return names.length > 0 ? names : undefined;
}

function safeTrace(sch: Schedule | undefined): unknown {
  try {
    return sch?.trace.toJSON();
  } catch {
    return undefined;
  }
}

/** Bounds on what an error may carry out of the isolate: enough to explain, too little to flood. */
const MAX_MESSAGE = 4000;
const MAX_STACK = 16_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function namedError(name: string, message: string): Error {
  const err = new Error(message);
  Object.defineProperty(err, "name", { value: name });
  return err;
}

/**
 * Error name, message and the raw stack (frames point into the bundle: the host maps them back to
 * the student's files and keeps only those). Anything thrown is read defensively: a thrown object
 * may have getters that throw.
 */
function errorInfo(err: unknown): ErrorInfo {
  try {
    if (!(err instanceof Error)) return { name: "Error", message: clip(`a non-Error value was thrown: ${String(err)}`, MAX_MESSAGE) };
    const stack = typeof err.stack === "string" ? clip(err.stack, MAX_STACK) : undefined;
    return { name: clip(String(err.name), 200), message: clip(String(err.message), MAX_MESSAGE), ...(stack === undefined ? {} : { stack }) };
  } catch {
    return { name: "Error", message: "an error was thrown that cannot be described (reading it threw again)" };
  }
}
