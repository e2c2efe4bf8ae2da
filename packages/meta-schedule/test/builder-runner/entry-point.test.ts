import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildWorkerEntry } from "../../src/builder/local-builder.js";
import { resolveEntryPoint } from "../../src/isolation/entry-point.js";
import { runnerChildEntry } from "../../src/runner/local-runner.js";

const NAMES = { module: "build-worker", bundle: "ms-build-worker.mjs" };

/** The overrides vitest's global setup points at a prebuilt bundle (scripts/test-workers): unset here, restored after. */
const OVERRIDES = ["TESSERA_WORKER_ENTRY_BUILD_WORKER", "TESSERA_WORKER_ENTRY_RUNNER_CHILD", "TESSERA_WORKER_ENTRY_REPLAY_WORKER"];

describe("worker entry points", () => {
  const dirs: string[] = [];
  const saved = new Map<string, string | undefined>();
  beforeEach(() => {
    for (const key of OVERRIDES) {
      saved.set(key, process.env[key]);
      delete process.env[key];
    }
  });
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  const scratch = (): string => {
    const d = mkdtempSync(join(tmpdir(), "tessera-entry-"));
    dirs.push(d);
    return d;
  };

  it("runs the TypeScript sources beside the module when running from sources", () => {
    for (const [entry, file] of [
      [buildWorkerEntry(), "src/builder/build-worker.ts"],
      [runnerChildEntry(), "src/runner/runner-child.ts"],
    ] as const) {
      expect(entry.typeScript).toBe(true);
      expect(fileURLToPath(entry.url)).toBe(fileURLToPath(new URL(`../../${file}`, import.meta.url)));
    }
  });

  it("finds the bundled worker beside the bundle that runs, before a dist file", () => {
    const dir = scratch();
    writeFileSync(join(dir, "ms-build-worker.mjs"), "");
    writeFileSync(join(dir, "build-worker.js"), "");
    const entry = resolveEntryPoint(pathToFileURL(join(dir, "tune.mjs")).href, NAMES);
    expect(fileURLToPath(entry.url)).toBe(join(dir, "ms-build-worker.mjs"));
    expect(entry.typeScript).toBe(false);
  });

  it("finds the compiled worker of dist, and honours the environment override", () => {
    const dir = scratch();
    writeFileSync(join(dir, "build-worker.js"), "");
    const caller = pathToFileURL(join(dir, "local-builder.js")).href;
    expect(fileURLToPath(resolveEntryPoint(caller, NAMES).url)).toBe(join(dir, "build-worker.js"));
    process.env.TESSERA_WORKER_ENTRY_BUILD_WORKER = join(dir, "elsewhere.mjs");
    expect(fileURLToPath(resolveEntryPoint(caller, NAMES).url)).toBe(join(dir, "elsewhere.mjs"));
  });

  it("says how to fix a bundle without the worker", () => {
    const dir = scratch();
    expect(() => resolveEntryPoint(pathToFileURL(join(dir, "tune.mjs")).href, NAMES)).toThrow(
      /add it to apps\/autograder\/scripts\/bundle-gpu\.ts as ms-build-worker\.mjs/,
    );
  });
});
