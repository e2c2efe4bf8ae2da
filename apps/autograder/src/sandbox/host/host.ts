/**
 * The sandbox host: the trusted program of the sandbox's child process. It runs the bundle (the
 * harness, our packages and the student's code) inside a V8 isolate (isolated-vm) that has no Node
 * at all, and answers the grader on file descriptor 3. Student code cannot reach this process's
 * objects, its channel or its output streams: it has only the `console` the host gives it, and
 * every message the grader receives is written here from what the harness's functions returned.
 *
 * One host serves the runs of one prepared file, one run at a time: each run request (a JSON line
 * on stdin) gets a fresh isolate — its own heap, the runtime and the bundle run anew, nothing of an
 * earlier run's objects — and its own limits: the isolate's memory (heap and array buffers) and one
 * deadline for the run. A run that the host stops (deadline, memory) is its last: the grader ends
 * the host then, as it does at a fault (see ../host-process.ts).
 */
import { createInterface } from "node:readline";
import { readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type * as IsolatedVm from "isolated-vm";
import { CONSOLE_SINK_GLOBAL, HARNESS_GLOBAL, RUNTIME_GLOBAL } from "../isolate/globals.js";
import type { ChildMessage, ErrorInfo, Job, JobResult, LoadMessage } from "../protocol.js";
import { CapturedOutput } from "./captured-output.js";
import { HOST_FILE, type HostSession, MAX_ANSWER_CHARS, OUTPUT_LIMIT_CHARS, type RunRequest } from "./request.js";
import { StackMapper } from "./stack-map.js";

type Ivm = typeof IsolatedVm;

/** Raised when the deadline passes or the isolate dies: the run stops there. */
class Stopped extends Error {
  constructor(readonly reason: "timeout" | "out-of-memory") {
    super(reason);
  }
}

function send(message: ChildMessage): void {
  writeSync(3, `${JSON.stringify(message)}\n`);
}

/** What a host keeps from one run to the next: nothing of the isolates, only the files it read and V8's code cache. */
interface Host {
  readonly ivm: Ivm;
  readonly session: HostSession;
  readonly bundleText: string;
  readonly runtimeCode: string;
  readonly stacks: StackMapper;
  /** The runtime's code cache for the next isolate: given by the grader, or produced by an earlier run here. */
  cache: RuntimeCache;
}

/** The code cache a run compiles the runtime with: none (it produces one), or data (undefined: the grader's file could not be read). */
type RuntimeCache = { readonly kind: "none" } | { readonly kind: "given"; readonly data: IsolatedVm.ExternalCopy<ArrayBuffer> | undefined };

async function main(): Promise<void> {
  const session = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as HostSession;
  // The addon itself, as isolated-vm's own loader gives it: it exports { ivm }.
  const { ivm } = createRequire(join(session.workDir, HOST_FILE))(session.isolatedVm) as { ivm: Ivm };
  const bundleText = readFileSync(join(session.workDir, session.bundle), "utf8");
  const host: Host = {
    ivm,
    session,
    bundleText,
    runtimeCode: asRuntimeScript(readFileSync(join(session.workDir, session.runtime), "utf8")),
    stacks: new StackMapper(bundleText, session.bundle, session.workDir),
    cache: session.runtimeCache === undefined ? { kind: "none" } : { kind: "given", data: readCodeCache(ivm, join(session.workDir, session.runtimeCache)) },
  };
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim() === "") continue;
    const ended = await runOnce(host, JSON.parse(line) as RunRequest);
    if (ended !== "done") break;
  }
}

/**
 * One run in a fresh isolate: the runtime, the bundle, the student's module, then the jobs. Ends
 * with "run-end" and the output the run printed; a fault (a host bug) propagates, and the process
 * writes that run's output to its own streams and exits, as a host always did.
 */
async function runOnce(host: Host, request: RunRequest): Promise<"done" | "stopped"> {
  const { ivm, stacks } = host;
  const output = new CapturedOutput(OUTPUT_LIMIT_CHARS);
  const deadline = Date.now() + request.limits.timeoutMs;
  const isolate = new ivm.Isolate({ memoryLimit: Math.max(16, request.limits.heapMb) });
  let ended: "done" | "stopped" | undefined;
  try {
    const context = await isolate.createContext();
    await context.global.set(
      CONSOLE_SINK_GLOBAL,
      new ivm.Callback((stream: unknown, text: unknown) => output.write(stream === "err" ? "err" : "out", String(text))),
    );
    const runtime = await compileRuntime(host, isolate);
    await withinDeadline(isolate, deadline, (timeout) => runtime.run(context, { timeout }));
    const script = await isolate.compileScript(host.bundleText, { filename: host.session.bundle });
    await withinDeadline(isolate, deadline, (timeout) => script.run(context, { timeout }));
    const harness = (await context.global.get(HARNESS_GLOBAL, { reference: true })) as IsolatedVm.Reference;
    await context.global.delete(HARNESS_GLOBAL);
    const load = (await harness.get("load", { reference: true })) as IsolatedVm.Reference;
    const runJob = (await harness.get("runJob", { reference: true })) as IsolatedVm.Reference;
    const call = (fn: IsolatedVm.Reference, args: string[]) =>
      withinDeadline(isolate, deadline, (timeout) => fn.apply(undefined, args, { arguments: { copy: true }, result: { promise: true, copy: true }, timeout }));
    const loaded = parseAnswer(await call(load, []));
    send({ type: "load", body: mapLoad(loaded, stacks) });
    if (loaded?.loaded === true) {
      for (const job of request.jobs) send({ type: "result", body: mapResult(job, parseAnswer(await call(runJob, [JSON.stringify(job)])), stacks) });
    }
    send({ type: "done" });
    ended = "done";
  } catch (err) {
    if (!(err instanceof Stopped)) throw err;
    send({ type: "stopped", reason: err.reason });
    ended = "stopped";
  } finally {
    if (!isolate.isDisposed) isolate.dispose();
    if (ended === undefined) {
      process.stdout.write(output.text("out"));
      process.stderr.write(output.text("err"));
    }
  }
  const used = process.cpuUsage();
  send({ type: "run-end", stdout: output.text("out"), stderr: output.text("err"), cpuMs: Math.round((used.user + used.system) / 1000) });
  return ended;
}

/** A script as isolated-vm returns it when asked to use or produce a code cache (its typings leave these out). */
type CompiledWithCache = IsolatedVm.Script & IsolatedVm.CachedDataResult & { readonly cachedDataRejected?: boolean };

/**
 * Compiles the runtime, with the code cache the host holds (compiling 1.4 MB of JavaScript is most
 * of an isolate's start) or producing one, and tells the grader which. This happens before any of
 * the run's student code, and a produced cache comes from the runtime's text alone, so what it
 * sends cannot be the student's doing. A cache V8 rejects is dropped: the next run produces one.
 */
async function compileRuntime(host: Host, isolate: IsolatedVm.Isolate): Promise<IsolatedVm.Script> {
  const filename = host.session.runtime;
  if (host.cache.kind === "given") {
    const cachedData = host.cache.data;
    // An unreadable cache costs the compile time it would have saved, never the run.
    const script: CompiledWithCache = await isolate.compileScript(host.runtimeCode, cachedData === undefined ? { filename } : { filename, cachedData });
    const accepted = cachedData !== undefined && script.cachedDataRejected !== true;
    if (!accepted) host.cache = { kind: "none" };
    send({ type: "runtime-compiled", cache: accepted ? "accepted" : "rejected" });
    return script;
  }
  const script: CompiledWithCache = await isolate.compileScript(host.runtimeCode, { filename, produceCachedData: true });
  const produced = script.cachedData?.copy();
  if (produced !== undefined) host.cache = { kind: "given", data: new host.ivm.ExternalCopy(produced) };
  send(
    produced === undefined
      ? { type: "runtime-compiled", cache: "none" }
      : { type: "runtime-compiled", cache: "produced", data: Buffer.from(produced).toString("base64") },
  );
  return script;
}

/** The code cache in `path` as isolated-vm takes it, or undefined when it cannot be read. */
function readCodeCache(ivm: Ivm, path: string): IsolatedVm.ExternalCopy<ArrayBuffer> | undefined {
  try {
    const cache = readFileSync(path);
    return new ivm.ExternalCopy(cache.buffer.slice(cache.byteOffset, cache.byteOffset + cache.byteLength));
  } catch {
    return undefined;
  }
}

/** The runtime's CommonJS text as a script that leaves its exports on the global (line numbers kept). */
function asRuntimeScript(code: string): string {
  return `(function (module, exports) {${code}\n})(globalThis[${JSON.stringify(RUNTIME_GLOBAL)}] = { exports: {} }, globalThis[${JSON.stringify(RUNTIME_GLOBAL)}].exports); globalThis[${JSON.stringify(RUNTIME_GLOBAL)}] = globalThis[${JSON.stringify(RUNTIME_GLOBAL)}].exports;`;
}

/**
 * Runs one step of the isolate under the run's deadline. The isolate has no timers or I/O, so a
 * promise it leaves pending never settles: the host's own timer ends the wait at the deadline.
 */
async function withinDeadline<T>(isolate: IsolatedVm.Isolate, deadline: number, step: (timeout: number) => Promise<T>): Promise<T> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new Stopped("timeout");
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Stopped("timeout")), remaining + 50);
  });
  try {
    return await Promise.race([step(Math.max(1, Math.ceil(remaining))), expired]);
  } catch (err) {
    if (err instanceof Stopped) throw err;
    const message = err instanceof Error ? err.message : String(err);
    if (/memory limit/i.test(message) || isolate.isDisposed) throw new Stopped("out-of-memory");
    if (/execution timed out/i.test(message)) throw new Stopped("timeout");
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** An answer of the harness: JSON text of bounded size; anything else reads as nothing. */
function parseAnswer(answer: unknown): Record<string, unknown> | undefined {
  if (typeof answer !== "string" || answer.length > MAX_ANSWER_CHARS) return undefined;
  try {
    const value: unknown = JSON.parse(answer);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function mapLoad(loaded: Record<string, unknown> | undefined, stacks: StackMapper): LoadMessage {
  if (loaded === undefined) return { loaded: false, error: { name: "GraderError", message: "the sandbox gave no answer while loading the module" } };
  if (loaded.loaded === true) return { loaded: true, exports: Array.isArray(loaded.exports) ? loaded.exports.map(String) : [] };
  return { loaded: false, error: mapError(loaded.error, stacks) };
}

function mapResult(job: Job, answer: Record<string, unknown> | undefined, stacks: StackMapper): JobResult {
  const millis = typeof answer?.millis === "number" ? answer.millis : 0;
  if (answer === undefined) {
    return {
      id: job.id,
      ok: false,
      error: { name: "GraderError", message: `the sandbox's answer for ${job.call} was missing or larger than ${MAX_ANSWER_CHARS} characters` },
      millis,
    };
  }
  if (answer.ok === true) {
    const blocks = Array.isArray(answer.returnedBlocks) ? { returnedBlocks: answer.returnedBlocks.map(String) } : {};
    return { id: job.id, ok: true, trace: answer.trace, ...blocks, millis };
  }
  return { id: job.id, ok: false, error: mapError(answer.error, stacks), ...(answer.trace === undefined ? {} : { trace: answer.trace }), millis };
}

function mapError(error: unknown, stacks: StackMapper): ErrorInfo {
  const e = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
  const stack = typeof e.stack === "string" ? stacks.studentFrames(e.stack) : undefined;
  return { name: String(e.name ?? "Error"), message: String(e.message ?? ""), ...(stack === undefined ? {} : { stack }) };
}

main().catch((err: unknown) => {
  send({ type: "fault", message: err instanceof Error ? err.message : String(err) });
  process.exitCode = 70;
});
