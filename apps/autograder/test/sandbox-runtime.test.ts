/**
 * The sandbox runtime (harness + @tessera/ir + @tessera/schedule in one CommonJS file): what it
 * exports, where the grader finds it, and that submissions run on a prebuilt one with a single
 * instance of each package shared by the harness and the student's code.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { workloadStart } from "../src/grade/workload-start.js";
import { type FileRun, type Job, prepareSubmissionFile } from "../src/sandbox/index.js";
import { SANDBOX_RUNTIME_ENV, SANDBOX_RUNTIME_FILE, buildSandboxRuntime } from "../src/sandbox/runtime-bundle.js";
import { locateSandboxRuntime } from "../src/sandbox/runtime-source.js";

const start = workloadStart(assignmentBinding(DEFAULT_ASSIGNMENT), 64);
const MARKER = "runtime-from-the-environment";

let scratch: string;
let runtimeCode: string;
/** A prebuilt runtime that also tags the schedule package, to see which runtime a submission got. */
let markedRuntime: string;
const previousEnv = process.env[SANDBOX_RUNTIME_ENV];

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tessera-runtime-test-"));
  runtimeCode = await buildSandboxRuntime();
  markedRuntime = join(scratch, "marked-runtime.cjs");
  await writeFile(markedRuntime, `${runtimeCode}\nmodule.exports.schedule.__marker = ${JSON.stringify(MARKER)};\n`);
});

afterAll(async () => {
  if (previousEnv === undefined) delete process.env[SANDBOX_RUNTIME_ENV];
  else process.env[SANDBOX_RUNTIME_ENV] = previousEnv;
  await rm(scratch, { recursive: true, force: true });
});

describe("the built sandbox runtime", () => {
  it("exports the harness, the isolate's environment, ir and schedule, and requires no other file or package", async () => {
    const file = join(scratch, SANDBOX_RUNTIME_FILE);
    await writeFile(file, runtimeCode);
    const runtime = createRequire(import.meta.url)(file) as Record<string, Record<string, unknown>>;
    expect(Object.keys(runtime).sort()).toEqual(["createHarness", "ir", "prepareIsolate", "schedule"]);
    expect(typeof runtime.createHarness).toBe("function");
    expect(typeof runtime.schedule?.Schedule).toBe("function");
    expect(typeof runtime.schedule?.BlockRV).toBe("function");
    expect(typeof runtime.ir?.gemmReluAdd).toBe("function");
    expect(runtimeCode).not.toMatch(/\brequire\(\s*["']/);
  });
});

describe("locating the sandbox runtime", () => {
  const noBuild = (): Promise<string> => Promise.reject(new Error("must not build"));

  it("takes the file named by the environment variable first", async () => {
    const besideDir = await mkdtemp(join(scratch, "beside-"));
    await writeFile(join(besideDir, SANDBOX_RUNTIME_FILE), runtimeCode);
    const found = await locateSandboxRuntime({ env: { [SANDBOX_RUNTIME_ENV]: markedRuntime }, besideDir, build: noBuild });
    expect(found.origin).toEqual({ kind: "env", path: markedRuntime });
    expect(found.code).toContain(MARKER);
  });

  it("says which file is missing when the environment variable names none", async () => {
    const missing = join(scratch, "nowhere.cjs");
    await expect(locateSandboxRuntime({ env: { [SANDBOX_RUNTIME_ENV]: missing }, build: noBuild })).rejects.toThrow(
      `$${SANDBOX_RUNTIME_ENV} names ${missing}, which does not exist`,
    );
  });

  it("takes sandbox-runtime.cjs beside the grader, else builds one", async () => {
    const besideDir = await mkdtemp(join(scratch, "beside-"));
    expect((await locateSandboxRuntime({ env: {}, besideDir, build: async () => "built createHarness" })).origin).toEqual({ kind: "built" });
    await writeFile(join(besideDir, SANDBOX_RUNTIME_FILE), runtimeCode);
    const found = await locateSandboxRuntime({ env: {}, besideDir, build: noBuild });
    expect(found.origin).toEqual({ kind: "beside", path: join(besideDir, SANDBOX_RUNTIME_FILE) });
  });

  it("refuses a file that is not a sandbox runtime", async () => {
    const bogus = join(scratch, "bogus.cjs");
    await writeFile(bogus, "module.exports = {};\n");
    await expect(locateSandboxRuntime({ env: { [SANDBOX_RUNTIME_ENV]: bogus }, build: noBuild })).rejects.toThrow(/is not a sandbox runtime/);
  });
});

describe("submissions on a prebuilt runtime", () => {
  async function runSource(source: string, jobs: Job[]): Promise<FileRun> {
    const dir = await mkdtemp(join(scratch, "submission-"));
    await writeFile(join(dir, "gemm_relu_add.ts"), source);
    const prepared = await prepareSubmissionFile(dir, "gemm_relu_add.ts");
    try {
      return await prepared.run(jobs, { timeoutMs: 20_000, heapMb: 256 });
    } finally {
      await prepared.dispose();
    }
  }

  it("uses the runtime of $TESSERA_SANDBOX_RUNTIME, one instance shared with the harness", async () => {
    process.env[SANDBOX_RUNTIME_ENV] = markedRuntime;
    const run = await runSource(
      [
        'import * as tessera from "@tessera/schedule";',
        'import { type BlockRV, Schedule } from "@tessera/schedule";',
        'import { gemmReluAdd } from "@tessera/ir";',
        "export function whichRuntime(): void {",
        "  throw new Error(String((tessera as Record<string, unknown>).__marker));",
        "}",
        "export function sameClasses(sch: Schedule): BlockRV {",
        '  if (!(sch instanceof Schedule)) throw new Error("the harness and the submission have different Schedule classes");',
        '  if (new Schedule(gemmReluAdd(16).func).getBlock("gemm") === undefined) throw new Error("no gemm");',
        '  return sch.getBlock("relu");',
        "}",
      ].join("\n"),
      [
        { id: "which", call: "whichRuntime", start, args: [] },
        { id: "same", call: "sameClasses", start, args: [] },
      ],
    );
    expect(run.load).toEqual({ ok: true, exports: ["sameClasses", "whichRuntime"] });
    const which = run.results.get("which");
    expect(which?.ok === false && which.error.message).toBe(MARKER);
    const same = run.results.get("same");
    expect(same?.ok).toBe(true);
    // The harness recognises the returned handle with its own `instanceof BlockRV`.
    expect(same?.ok === true && same.returnedBlocks).toEqual(["relu"]);
  });

  it("does not let a submission import the runtime itself", async () => {
    const run = await runSource('import * as rt from "tessera-sandbox:runtime";\nexport const x = rt;\n', []);
    if (run.load.ok || run.load.stage !== "build") throw new Error("expected a build failure");
    expect(run.load.diagnostics.join("\n")).toMatch(
      /imports the package "tessera-sandbox:runtime"; a submission may only import @tessera\/schedule and @tessera\/ir and its own files/,
    );
  });
});
