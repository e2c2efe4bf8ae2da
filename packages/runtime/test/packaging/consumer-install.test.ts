/**
 * The published packages work outside this repository: they are built, `pnpm pack`ed, installed
 * with npm from the tarballs into a scratch project in the OS temp folder, and used there with
 * plain `node` (consumer/main.mjs) and type-checked against their shipped .d.ts
 * (consumer/check.mts). The runtime's install script compiles its native addon in the scratch
 * project; without the addon the runtime must still load and report CUDA unavailable.
 *
 * Too slow for the unit-test run (it builds six packages, packs them, installs with npm and
 * compiles the addon: about a minute of CPU), so it runs only with TESSERA_PACK_TEST=1: CI runs it
 * as a step of its own (`pnpm test:pack`, see .ci/run). TESSERA_PACK_KEEP=1 keeps the scratch project.
 */
import { copyFile, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  PUBLISHED_PACKAGES,
  REPO_ROOT,
  buildPublishedPackages,
  childEnv,
  installTarballs,
  installedPackageProblems,
  packPublishedPackages,
  tsc,
} from "./published-packages.js";

const CONSUMER_FILES = join(dirname(fileURLToPath(import.meta.url)), "consumer");

interface ConsumerFacts {
  printedHasBlock: boolean;
  kernels: { name: string; grid: number[]; block: number[] }[];
  cudaHasGlobal: boolean;
  cudaKernelNames: string[];
  simulatorError: number;
  races: number;
  buildDevice: "cuda" | "sim";
  buildError?: number;
  designSpaces: number;
  designSpaceBinds: number;
  curveWithoutPeers: string;
  addonLoaded: boolean;
  addonPath?: string;
  cudaAvailable: boolean;
  cudaUnavailableReason?: string;
}

async function runConsumer(projectDir: string): Promise<ConsumerFacts> {
  const res = await execa(process.execPath, ["main.mjs"], { cwd: projectDir, reject: false, env: childEnv() });
  if (res.exitCode !== 0) throw new Error(`node main.mjs failed (exit ${res.exitCode}):\n${res.stderr}\n${res.stdout}`);
  return JSON.parse(res.stdout.trim().split("\n").at(-1)!) as ConsumerFacts;
}

const enabled = process.env.TESSERA_PACK_TEST === "1";
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";
if (!enabled && VERBOSE)
  console.log("[packaging] skipped: set TESSERA_PACK_TEST=1 (or run `pnpm test:pack`) to pack, install and use the packages outside the workspace");

describe.runIf(enabled)("the published packages, installed from their tarballs outside the workspace", () => {
  let project = "";
  const timings: Record<string, number> = {};
  // One `node main.mjs` of the install as npm left it serves the two tests that read its facts
  // (about 1 CPU s a run); the run without the addon below is its own.
  let installedRun: Promise<ConsumerFacts> | undefined;
  const factsAsInstalled = (): Promise<ConsumerFacts> => {
    if (installedRun === undefined) {
      const t = performance.now();
      installedRun = runConsumer(project).finally(() => {
        timings["node main.mjs"] = (performance.now() - t) / 1000;
      });
    }
    return installedRun;
  };

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), "tessera-consumer-"));
    expect(relative(REPO_ROOT, project).startsWith("..")).toBe(true);
    let t = performance.now();
    const built = await buildPublishedPackages();
    timings[`build (${built.length === 0 ? "dist current" : built.join(", ")})`] = (performance.now() - t) / 1000;
    t = performance.now();
    const tarballs = await packPublishedPackages(join(project, "tarballs"));
    timings.pack = (performance.now() - t) / 1000;
    expect(tarballs).toHaveLength(PUBLISHED_PACKAGES.length);
    // Compile the addon even where a prebuilt one is packed: the install-time build is what this tests.
    const install = await installTarballs(project, tarballs, { TESSERA_NATIVE_FROM_SOURCE: "1" });
    timings["npm install (addon compile included)"] = install.seconds;
    await copyFile(join(CONSUMER_FILES, "main.mjs"), join(project, "main.mjs"));
    await copyFile(join(CONSUMER_FILES, "check.mts"), join(project, "check.mts"));
  }, 300_000);

  afterAll(async () => {
    if (VERBOSE)
      console.log(
        `[packaging] ${Object.entries(timings)
          .map(([k, s]) => `${k}: ${s.toFixed(1)} s`)
          .join("; ")}`,
      );
    if (process.env.TESSERA_PACK_KEEP === "1") console.log(`[packaging] kept the scratch project ${project}`);
    else if (project !== "") await rm(project, { recursive: true, force: true });
  });

  it("installs manifests without workspace: ranges or the source condition, whose dist imports only declared dependencies", async () => {
    const installed = PUBLISHED_PACKAGES.map((name) => installedPackageProblems(join(project, "node_modules", "@tessera", name)));
    const problems = (await Promise.all(installed)).flat();
    expect(problems).toEqual([]);
  });

  it("parses, schedules, lowers, emits CUDA and simulates a matmul with plain node, matching the CPU executor", async () => {
    const facts = await factsAsInstalled();
    expect(facts.printedHasBlock).toBe(true);
    // 32×32 split into blocks of 8×16 threads.
    expect(facts.kernels).toEqual([{ name: expect.any(String), grid: [4, 2, 1], block: [8, 16, 1] }]);
    expect(facts.cudaHasGlobal).toBe(true);
    expect(facts.cudaKernelNames).toEqual(facts.kernels.map((k) => k.name));
    expect(facts.simulatorError).toBeLessThanOrEqual(1e-4);
    expect(facts.races).toBe(0);
    if (facts.buildDevice === "sim") expect(facts.buildError).toBeLessThanOrEqual(1e-4);
    expect(facts.designSpaces).toBeGreaterThan(0);
    expect(facts.designSpaceBinds).toBeGreaterThan(0);
    expect(facts.curveWithoutPeers).toMatch(/^install vega and vega-lite to draw tuning curves/);
  });

  it("built the runtime's native addon on install, inside the scratch project", async () => {
    const facts = await factsAsInstalled();
    const runtimeDir = join(project, "node_modules", "@tessera", "runtime");
    const buildLog = join(runtimeDir, "build", "native-build-error.txt");
    expect(existsSync(buildLog) ? `install-time build failed, see ${buildLog}` : facts.addonPath).toBe(
      join(runtimeDir, "build", "Release", "tessera_cuda.node"),
    );
    if (!facts.cudaAvailable) expect(facts.cudaUnavailableReason).toMatch(/libcuda/);
  });

  it("type-checks a consumer against the shipped declarations (skipLibCheck off)", async () => {
    const tsconfig = {
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2022"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: ["node"],
        // @types/node comes from the workspace, so the scratch install stays what a runtime user needs.
        typeRoots: [join(REPO_ROOT, "node_modules", "@types")],
      },
      files: ["check.mts"],
    };
    await writeFile(join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    const t = performance.now();
    await tsc(["-p", "tsconfig.json"], project);
    timings["tsc consumer"] = (performance.now() - t) / 1000;
  }, 180_000);

  it("without the addon (a failed install-time build) still loads, reports why CUDA is unavailable and runs on the simulator", async () => {
    const runtimeDir = join(project, "node_modules", "@tessera", "runtime");
    await rename(join(runtimeDir, "build"), join(runtimeDir, "build.off"));
    await rm(join(runtimeDir, "prebuilds"), { recursive: true, force: true });
    try {
      const script = join(runtimeDir, "scripts", "build-native.mjs");
      const skip = await execa(process.execPath, [script], {
        cwd: project,
        reject: false,
        all: true,
        env: childEnv({ TESSERA_SKIP_NATIVE_BUILD: "1" }),
      });
      expect(skip.exitCode, "a failed addon build never fails the install").toBe(0);
      const facts = await runConsumer(project);
      expect(facts.addonLoaded).toBe(false);
      expect(facts.cudaAvailable).toBe(false);
      expect(facts.cudaUnavailableReason).toContain("not built");
      expect(facts.cudaUnavailableReason).toContain(join(runtimeDir, "build", "native-build-error.txt"));
      expect(facts.buildDevice).toBe("sim");
      expect(facts.buildError).toBeLessThanOrEqual(1e-4);
    } finally {
      await rm(join(runtimeDir, "build"), { recursive: true, force: true });
      await rename(join(runtimeDir, "build.off"), join(runtimeDir, "build"));
    }
  });
});
