/**
 * Escape attempts against the grading sandbox, each as a student would write it: every one must
 * fail inside the student's own task (or stop the run) with a message naming what was refused, and
 * leave the grader untouched. Task-level probes share one sandboxed run (one job each); probes of a
 * module's top-level code, of time and of memory get runs of their own.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { getPriority } from "node:os";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { type FileRun, type Job, type SandboxLimits, prepareSubmissionFile } from "../src/sandbox/index.js";

const FILE = "gemm_relu_add.ts";
const start = workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), 64);
const limits: SandboxLimits = { timeoutMs: 20_000, heapMb: 256 };

interface Probe {
  readonly name: string;
  /** The body of `export function <name>(sch: any)`. */
  readonly body: string;
  /** What the task's error message must say. */
  readonly refused: RegExp;
}

/** Each probe throws when the sandbox refuses it; one that returns normally got through. */
const TASK_PROBES: readonly Probe[] = [
  {
    name: "netThroughGetBuiltinModule",
    body: `const net = (process as any).getBuiltinModule("net"); net.createServer().listen(0, "127.0.0.1");`,
    refused: /process is not defined/,
  },
  { name: "vmRunInNewContext", body: `const vm = load("vm"); vm.runInNewContext("1 + 1");`, refused: /may not load "vm"/ },
  { name: "setPriorityOfParent", body: `load("os").setPriority(process.ppid, 19);`, refused: /may not load "os"/ },
  { name: "inspectorOfParent", body: `(process as any)._debugProcess(process.ppid);`, refused: /process is not defined/ },
  { name: "killParent", body: `(process as any)._kill(process.ppid, 9);`, refused: /process is not defined/ },
  { name: "stopParent", body: `process.kill(process.ppid, "SIGSTOP");`, refused: /process is not defined/ },
  { name: "readEnvironment", body: `throw new Error(JSON.stringify(process.env));`, refused: /process is not defined/ },
  { name: "writeResultChannel", body: `load("fs").writeSync(3, '{"type":"done"}\\n');`, refused: /may not load "fs"/ },
  {
    name: "dynamicImportChildProcess",
    body: `return import(["node", "child_process"].join(":")).then((cp: any) => cp.execSync("id"));`,
    refused: /may not load "node:child_process"/,
  },
  { name: "requireAddon", body: `load("/tmp/evil.node");`, refused: /may not load "\/tmp\/evil\.node"/ },
  { name: "workerThread", body: `new (globalThis as any).Worker("data:,1");`, refused: /Worker is not a constructor/ },
  { name: "fetchRedis", body: `return (globalThis as any).fetch("http://127.0.0.1:6379/");`, refused: /fetch is not a function/ },
  { name: "webSocket", body: `new (globalThis as any).WebSocket("ws://127.0.0.1:6379/");`, refused: /WebSocket is not a constructor/ },
  { name: "evalString", body: `(globalThis as any).eval("1 + 1");`, refused: /eval is not a function/ },
  { name: "functionConstructor", body: `new Function("return this")();`, refused: /code generation from strings is not available/ },
  {
    name: "constructorOfConstructor",
    body: `(({}) as any).constructor.constructor("return process")();`,
    refused: /code generation from strings is not available/,
  },
  {
    name: "asyncFunctionConstructor",
    body: `(Object.getPrototypeOf(async function () {}) as any).constructor("return 1");`,
    refused: /code generation from strings is not available/,
  },
  {
    name: "generatorFunctionConstructor",
    body: `(Object.getPrototypeOf(function* () {}) as any).constructor("yield 1");`,
    refused: /code generation from strings is not available/,
  },
  {
    name: "webAssembly",
    body: `(globalThis as any).WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));`,
    refused: /Cannot read properties of undefined \(reading 'compile'\)/,
  },
  {
    name: "sharedMemoryAndAtomics",
    body: `(globalThis as any).Atomics.wait(new Int32Array(new (globalThis as any).SharedArrayBuffer(4)), 0, 0);`,
    refused: /is not a constructor|Cannot read properties of undefined/,
  },
  { name: "timerOutlivingTask", body: `(globalThis as any).setTimeout(() => undefined, 1);`, refused: /setTimeout is not a function/ },
  { name: "intervalTimer", body: `(globalThis as any).setInterval(() => undefined, 1);`, refused: /setInterval is not a function/ },
  { name: "patchScheduleClass", body: `Object.getPrototypeOf(sch).split = () => [];`, refused: /Cannot assign to read only property 'split'/ },
  { name: "patchTraceSerialisation", body: `Object.getPrototypeOf(sch.trace).toJSON = () => ({});`, refused: /Cannot assign to read only property 'toJSON'/ },
  {
    name: "addToSchedulePackage",
    body: `Object.defineProperty(Object.getPrototypeOf(sch), "forged", { value: 1 });`,
    refused: /Cannot define property forged, object is not extensible/,
  },
  {
    name: "forgeThroughJson",
    body: `JSON.stringify = () => '{"id":"forgeThroughJson","ok":true,"trace":{},"millis":0}'; throw new Error("task not done");`,
    refused: /^task not done$/,
  },
  {
    name: "pollutePrototypes",
    body: `(Object.prototype as any).ok = true; (Object.prototype as any).trace = { forged: true }; throw new Error("still not done");`,
    refused: /^still not done$/,
  },
  {
    name: "arrayBuffersBeyondLimit",
    body: `const hoard: Uint8Array[] = []; for (let i = 0; i < 64; i++) hoard.push(new Uint8Array(64 * 1024 * 1024)); return hoard.length;`,
    refused: /Array buffer allocation failed/,
  },
  { name: "deepRecursion", body: `const f = (n: number): number => f(n + 1) + 1; f(0);`, refused: /Maximum call stack size exceeded/ },
  { name: "throwHostileObject", body: `throw new Proxy({}, { get() { throw new Error("gotcha"); } });`, refused: /cannot be described|non-Error value/ },
  { name: "hugeErrorMessage", body: `throw new Error("x".repeat(50_000_000));`, refused: /^x{4000}… \(49996000 more characters\)$/ },
  {
    name: "hugeTrace",
    body: `const b = sch.getBlock("gemm"); for (let i = 0; i < 2000; i++) sch.annotate(b, "note" + i, "x".repeat(5000));`,
    refused: /answer for hugeTrace was missing or larger than 8388608 characters/,
  },
  {
    name: "harnessHandleGone",
    body: `const g = globalThis as any; throw new Error(["__tesseraHarness", "__tesseraConsoleSink", "__tesseraRuntime"].map((n) => typeof g[n]).join(","));`,
    refused: /^undefined,undefined,undefined$/,
  },
  {
    name: "callSitesOfHost",
    body: `(Error as any).prepareStackTrace = (_: unknown, frames: any[]) => frames.map((f) => String(f.getFunction?.()?.constructor?.constructor?.("return process")?.()));  throw new Error("x");`,
    refused: /code generation from strings is not available|cannot be described|^x$/,
  },
];

/** The global names a submission sees: the ECMAScript library, plus console, performance and the refusing require. */
const ALLOWED_GLOBALS = new Set([
  "Object",
  "Function",
  "Array",
  "Number",
  "parseFloat",
  "parseInt",
  "Infinity",
  "NaN",
  "undefined",
  "Boolean",
  "String",
  "Symbol",
  "Date",
  "Promise",
  "RegExp",
  "Error",
  "AggregateError",
  "EvalError",
  "RangeError",
  "ReferenceError",
  "SyntaxError",
  "TypeError",
  "URIError",
  "globalThis",
  "JSON",
  "Math",
  "Intl",
  "ArrayBuffer",
  "Uint8Array",
  "Int8Array",
  "Uint16Array",
  "Int16Array",
  "Uint32Array",
  "Int32Array",
  "Float32Array",
  "Float64Array",
  "Uint8ClampedArray",
  "BigUint64Array",
  "BigInt64Array",
  "DataView",
  "Map",
  "BigInt",
  "Set",
  "WeakMap",
  "WeakSet",
  "Proxy",
  "Reflect",
  "FinalizationRegistry",
  "WeakRef",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  "isFinite",
  "isNaN",
  "Iterator",
  "console",
  "performance",
  "require",
  "SuppressedError",
  "DisposableStack",
  "AsyncDisposableStack",
  "Float16Array",
  // zod (inside @tessera/ir) keeps its settings on the global; they steer only the isolate's own parsing.
  "__zod_globalConfig",
  "__zod_globalRegistry",
]);

function probeFile(probes: readonly Probe[]): string {
  const fns = probes.map((p) => `export function ${p.name}(sch: any): unknown {\n  ${p.body}\n}`);
  const globals = `export function globalNames(): never { throw new Error(Object.getOwnPropertyNames(globalThis).join(",")); }`;
  // A module name that is not a literal: the bundler cannot refuse it, so the sandbox must.
  const load = "const load = (name: string): any => require(name);";
  return ["declare const require: (m: string) => any;", "declare const process: any;", load, ...fns, globals].join("\n\n");
}

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-escapes-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

async function runSource(name: string, source: string, jobs: readonly Job[], runLimits = limits): Promise<FileRun> {
  const dir = join(scratch, name);
  await rm(dir, { recursive: true, force: true });
  await import("node:fs/promises").then((fs) => fs.mkdir(dir, { recursive: true }));
  await writeFile(join(dir, FILE), source);
  const prepared = await prepareSubmissionFile(dir, FILE);
  try {
    return await prepared.run(jobs, runLimits);
  } finally {
    await prepared.dispose();
  }
}

describe("escape attempts inside a task", () => {
  let run: FileRun;
  const priorityBefore = getPriority(process.pid);

  beforeAll(async () => {
    const jobs: Job[] = [
      ...TASK_PROBES.map((p) => ({ id: p.name, call: p.name, start, args: [] })),
      { id: "globalNames", call: "globalNames", start, args: [] },
    ];
    run = await runSource("task-probes", probeFile(TASK_PROBES), jobs);
  }, 120_000);

  it("runs every probe to its end in one sandbox", () => {
    expect(run.load).toMatchObject({ ok: true });
    expect(run.exit).toEqual({ kind: "finished" });
    expect(run.invalidMessages).toBe(0);
  });

  it.each(TASK_PROBES.map((p) => [p.name, p] as const))("%s is refused with a message naming it", (_, probe) => {
    const result = run.results.get(probe.name);
    expect(result?.ok, `${probe.name} got through`).toBe(false);
    if (result?.ok !== false) return;
    expect(result.error.message).toMatch(probe.refused);
  });

  it("gives the submission only the ECMAScript library, console and performance", () => {
    const result = run.results.get("globalNames");
    if (result?.ok !== false) throw new Error("globalNames should have thrown its list");
    const unexpected = result.error.message.split(",").filter((name) => !ALLOWED_GLOBALS.has(name));
    expect(unexpected, result.error.message).toEqual([]);
  });

  it("leaves the grader's process priority alone", () => {
    expect(getPriority(process.pid)).toBe(priorityBefore);
  });
});

describe("escape attempts by a module's top-level code, time and memory", () => {
  it("stops a module whose top level never ends, at the time limit", async () => {
    const run = await runSource("top-loop", "for (;;) {}\nexport function t(): void {}", [{ id: "t", call: "t", start, args: [] }], {
      timeoutMs: 2000,
      heapMb: 256,
    });
    expect(run.exit).toEqual({ kind: "timeout", afterMs: 2000 });
    expect(run.results.size).toBe(0);
  });

  it("stops a task whose promise never settles (there are no timers to settle it), at the time limit", async () => {
    const run = await runSource(
      "pending",
      "export function t(): Promise<void> { return new Promise(() => undefined); }",
      [{ id: "t", call: "t", start, args: [] }],
      { timeoutMs: 1500, heapMb: 256 },
    );
    expect(run.exit).toEqual({ kind: "timeout", afterMs: 1500 });
  });

  it("stops an endless chain of microtasks at the time limit", async () => {
    const run = await runSource("microtasks", "export async function t(): Promise<void> { for (;;) await null; }", [{ id: "t", call: "t", start, args: [] }], {
      timeoutMs: 1500,
      heapMb: 256,
    });
    expect(run.exit).toEqual({ kind: "timeout", afterMs: 1500 });
  });

  it("stops a module that fills the heap at its top level", async () => {
    const run = await runSource(
      "top-bomb",
      "const hoard: string[][] = []; for (;;) hoard.push(new Array(1e6).fill('x'));\nexport function t(): void {}",
      [{ id: "t", call: "t", start, args: [] }],
      { timeoutMs: 30_000, heapMb: 128 },
    );
    expect(run.exit?.kind).toBe("out-of-memory");
  });

  it("keeps a flood of printed output to a bounded size and says how much was left out", async () => {
    const run = await runSource("flood", "export function t(): void { for (let i = 0; i < 20000; i++) console.log('Total 100 / 100 ' + i); }", [
      { id: "t", call: "t", start, args: [] },
    ]);
    expect(run.results.get("t")?.ok).toBe(true);
    expect(run.stdout.length).toBeLessThan(80 * 1024);
    expect(run.stdout).toMatch(/more characters of output not kept/);
  });

  it("prints sch.show() and console output as the student's output (there is no process.stdout)", async () => {
    const source = "export function t(sch: any): void { sch.show(); console.warn('careful'); }";
    const run = await runSource("show", source, [{ id: "t", call: "t", start, args: [] }]);
    expect(run.results.get("t")?.ok).toBe(true);
    expect(run.stdout).toMatch(/@T\.prim_func|def main/);
    expect(run.stderr).toBe("careful\n");
  });

  it("cannot reach the grader's result channel from the top level either", async () => {
    const source =
      "let sent = 'no'; const fsName = ['f', 's'].join(''); try { require(fsName).writeSync(3, '{\"type\":\"done\"}\\n'); sent = 'yes'; } catch {}\nexport function t(): void { throw new Error('sent: ' + sent); }\ndeclare const require: (m: string) => any;";
    const run = await runSource("top-channel", source, [{ id: "t", call: "t", start, args: [] }]);
    const result = run.results.get("t");
    expect(result?.ok === false && result.error.message).toBe("sent: no");
  });
});
