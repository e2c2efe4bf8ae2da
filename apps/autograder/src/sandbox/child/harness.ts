/**
 * Runs inside the sandboxed child: loads the student's module, runs each job (call an exported
 * function on a fresh schedule) and sends back the recorded trace. Student code shares this
 * process, so nothing here is trusted by the parent beyond the traces it replays itself.
 */
import { parsePrimFunc } from "@tessera/ir";
import { BlockRV, Schedule } from "@tessera/schedule";
import { type ChildMessage, type ErrorInfo, type Job, type JobArg, type JobResult, JobListSchema } from "../protocol.js";
import { workloadFunction } from "./workloads.js";

/** Defined by the preamble in the bundle's outermost scope, which the student's modules share. */
declare let __tesseraSend: ((message: ChildMessage) => void) | undefined;

type StudentModule = Record<string, unknown>;

/** Jobs arrive as JSON in the first command-line argument. */
export async function runHarness(fileLabel: string, load: () => Promise<StudentModule>): Promise<void> {
  // Take the channel before any student code runs: it could otherwise send forged results by name.
  const send = __tesseraSend!;
  __tesseraSend = undefined;
  const jobs = JobListSchema.parse(JSON.parse(process.argv[2] ?? "[]"));
  let mod: StudentModule;
  try {
    mod = await load();
  } catch (err) {
    send({ type: "load", body: { loaded: false, error: errorInfo(err) } });
    send({ type: "done" });
    return;
  }
  send({ type: "load", body: { loaded: true, exports: Object.keys(mod).sort() } });
  let previous: Schedule | undefined;
  for (const job of jobs) {
    const { result, sch } = await runJob(job, mod, fileLabel, previous);
    previous = result.ok ? sch : undefined;
    send({ type: "result", body: result });
  }
  send({ type: "done" });
}

async function runJob(
  job: Job,
  mod: StudentModule,
  fileLabel: string,
  previous: Schedule | undefined,
): Promise<{ result: JobResult; sch: Schedule | undefined }> {
  const started = performance.now();
  const millis = (): number => Math.round((performance.now() - started) * 10) / 10;
  let sch: Schedule | undefined;
  try {
    const fn = mod[job.call];
    if (typeof fn !== "function") {
      const what = fn === undefined ? "does not export" : `exports a ${typeof fn}, not a function, named`;
      throw namedError("MissingExport", `${fileLabel} ${what} \`${job.call}\``);
    }
    sch = startSchedule(job, previous);
    const schedule = sch;
    const args = job.args.map((a) => resolveArg(schedule, a));
    const returned: unknown = await (fn as (...xs: unknown[]) => unknown)(schedule, ...args);
    const result: JobResult = { id: job.id, ok: true, trace: schedule.trace.toJSON(), returnedBlocks: returnedBlockNames(schedule, returned), millis: millis() };
    return { result, sch };
  } catch (err) {
    return { result: { id: job.id, ok: false, error: errorInfo(err), trace: safeTrace(sch), millis: millis() }, sch };
  }
}

function startSchedule(job: Job, previous: Schedule | undefined): Schedule {
  if (job.start.kind === "previous") {
    if (previous === undefined) throw namedError("GraderError", `job ${job.id}: there is no successful previous job to continue from`);
    return previous;
  }
  const func = job.start.kind === "workload" ? workloadFunction(job.start.workload, job.start.size) : parsePrimFunc(job.start.script);
  return new Schedule(func, job.seed === undefined ? {} : { seed: job.seed });
}

function resolveArg(sch: Schedule, arg: JobArg): unknown {
  return typeof arg === "number" ? arg : sch.getBlock(arg.block);
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

function namedError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}

/** Error name, message and the stack frames that point into the submission (not our packages). */
function errorInfo(err: unknown): ErrorInfo {
  if (!(err instanceof Error)) return { name: "Error", message: `a non-Error value was thrown: ${String(err)}` };
  const frames = (err.stack ?? "")
    .split("\n")
    .slice(1)
    .filter((line) => line.includes("/submission/") || line.includes("[submission]"));
  return { name: err.name, message: err.message, ...(frames.length > 0 ? { stack: frames.join("\n") } : {}) };
}
