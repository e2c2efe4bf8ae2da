import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorkerEntry } from "../../src/builder/local-builder.js";
import { resolveEntryPoint } from "../../src/isolation/entry-point.js";
import { runnerChildEntry } from "../../src/runner/local-runner.js";

const NAMES = { module: "build-worker", bundle: "ms-build-worker.mjs" };

describe("worker entry points", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    delete process.env.TESSERA_WORKER_ENTRY_BUILD_WORKER;
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
