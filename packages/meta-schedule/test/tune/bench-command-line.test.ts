/**
 * `pnpm bench:tune`, `bench:learned-model`, `bench:prior-ranking`, `bench:prior-profiles`, `bench:prior-switches` and
 * `bench:search-offline` with a mistaken command line: the usage and exit code 2, never a stack trace.
 *
 * Each script is bundled once (esbuild, as `pnpm tessera` runs from a bundle) and each command line
 * runs the bundle with plain Node: through tsx, every run compiled the whole workspace again (4 s).
 * The bundle is split at the scripts' dynamic imports: a script reads its command line before it
 * imports the compiler, so a refusal loads only its entry's own small chunk (checked below).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Metafile, build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const benchDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "bench");
const SCRIPTS = ["tune.bench.ts", "learned-model.bench.ts", "prior-ranking.bench.ts", "prior-profiles.ts", "prior-switches.ts", "search-offline.bench.ts"];
// Beside bench/, so that the scripts' paths relative to their own file (the repository's docs/) still hold.
const bundleDir = mkdtempSync(join(benchDir, "..", ".bench-cli-"));
let metafile: Metafile | undefined;

beforeAll(async () => {
  ({ metafile } = await build({
    entryPoints: SCRIPTS.map((s) => join(benchDir, s)),
    outdir: bundleDir,
    bundle: true,
    splitting: true,
    metafile: true,
    platform: "node",
    format: "esm",
    conditions: ["@tessera/source"],
    logLevel: "error",
    // Native and self-locating packages load from the install at run time.
    external: ["isolated-vm", "esbuild", "@resvg/*", "msgpackr-extract"],
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
  }));
}, 120_000);
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));

function runScript(script: string, ...args: string[]) {
  return spawnSync(process.execPath, [join(bundleDir, basename(script).replace(/\.ts$/, ".js")), ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** Each mistaken command line must end with the message, the bench's usage and exit code 2 — no stack trace. */
function refusedWithUsage(script: string, usage: string, cases: [string[], RegExp][]): void {
  it.each(cases)(
    "%j is refused with the usage",
    (args, message) => {
      const r = runScript(script, ...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain(`usage: ${usage}`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );
}

/** The sources a bundled script evaluates before its first dynamic import: its entry chunk and the chunks that imports statically. */
function sourcesLoadedFirst(script: string): string[] {
  const outputs = metafile!.outputs;
  const entry = Object.keys(outputs).find((out) => outputs[out]!.entryPoint?.endsWith(`bench/${script}`));
  expect(entry, `no output of ${script}`).toBeDefined();
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const dep of outputs[out]!.imports) if (dep.kind === "import-statement" && !dep.external) visit(dep.path);
  };
  visit(entry!);
  return [...seen].flatMap((out) => Object.keys(outputs[out]!.inputs));
}

describe("the bench scripts read their command line before they load the compiler", () => {
  it.each(SCRIPTS)("%s: no workspace source is evaluated before its options are checked", (script) => {
    const loaded = sourcesLoadedFirst(script);
    // The bench's own entry and its command-line helpers only: packages' src/ folders (the compiler) come after.
    expect(loaded.some((input) => input.endsWith(`bench/${script}`))).toBe(true);
    expect(loaded.filter((input) => /(^|\/)packages\/[^/]+\/src\//.test(input))).toEqual([]);
  });
});

describe("bench:tune command line", () => {
  refusedWithUsage("tune.bench.ts", "bench:tune", [
    [["--help"], /Unknown option '--help'/],
    [["--only", "no_such_workload"], /unknown workload "no_such_workload"; known: gemm_relu_add_2048/],
    [["--gemm-trials", "0"], /--gemm-trials must be a positive integer, got "0"/],
    [["--learned-features", "xgb"], /--learned-features must be one of kernel-summary, per-store, got "xgb"/],
    [["--neighbour-share", "1.5"], /--neighbour-share must be a number in \[0, 1\], got "1.5"/],
    [["--population", "0"], /--population must be a positive integer, got "0"/],
    [["--islands", "0"], /--islands must be a positive integer, got "0"/],
    [["--climb-steps", "1.5"], /--climb-steps must be a non-negative integer \(0: no hill climbs\), got "1.5"/],
    [["--workers", "two"], /--workers must be a non-negative integer \(0: no search worker threads\), got "two"/],
    [["--last-batch-sees-first"], /--last-batch-sees-first needs --overlap/],
    [["--polish-trials", "33"], /--polish-trials \(33\) must be at most --per-iter \(32\): the polish is one batch/],
  ]);
});

describe("bench:learned-model command line", () => {
  refusedWithUsage("learned-model.bench.ts", "bench:learned-model", [
    [["--sizes", "32,abc"], /--sizes must be a list of positive integers, got "32,abc"/],
    [["--seeds", "0"], /--seeds must be a list of positive integers, got "0"/],
    [["--no-such-option"], /Unknown option '--no-such-option'/],
    // Regression: a folder that does not exist ended in readdirSync's ENOENT stack trace.
    [["--reports", "no/such/folder"], /no folder no\/such\/folder/],
  ]);
});

describe("bench:prior-ranking command line", () => {
  refusedWithUsage("prior-ranking.bench.ts", "bench:prior-ranking", [
    [["--reports", ","], /--reports names no folder/],
    [["--reports", "docs/benchmarks,no/such/folder"], /no folder no\/such\/folder/],
    [["--out-dir", "no/such/folder"], /no folder no\/such\/folder/],
    [["--trials", "3"], /Unknown option '--trials'/],
  ]);
});

describe("bench:prior-profiles command line", () => {
  refusedWithUsage("prior-profiles.ts", "bench:prior-profiles", [
    [["--workload", "gemm_relu_add_2048", "--out", "x.json"], /--workload, --reports and --out are all needed/],
    [["--workload", "gemm_relu_add_2048", "--reports", ",", "--out", "x.json"], /--reports names no folder/],
    [["--workload", "gemm_relu_add_2048", "--reports", "no/such/folder", "--out", "x.json"], /no folder no\/such\/folder/],
    [["--workload", "gemm_relu_add_2048", "--reports", "docs/benchmarks", "--out", "no/such/folder/x.json"], /no folder no\/such\/folder/],
    [["--workload", "no_such_workload", "--reports", "docs/benchmarks", "--out", "x.json"], /unknown workload "no_such_workload"; known: gemm_relu_add_2048/],
  ]);
});

describe("bench:prior-switches", () => {
  const dir = mkdtempSync(join(benchDir, "..", ".prior-switches-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, rows: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(rows));
    return path;
  };
  /** A kernel's profile: `lines` global lines a warp, the rest one issue-bound gemm-like kernel. */
  const kernel = (lines: number) => ({
    profile: {
      name: "k",
      threadsPerBlock: 128,
      blocks: 256,
      sharedBytes: 16_624,
      fpInstructions: 262_400,
      flops: 524_544,
      tensorFlops: 0,
      tensorInstructions: 0,
      memoryInstructions: 18_000,
      globalLines: lines,
      sharedWavefronts: 45_000,
      idealSharedWavefronts: 45_000,
      barriers: 256,
      localElements: 168,
      largestLocalBuffer: 128,
      globalFootprintBytes: 64 << 20,
      minBlocksPerSM: 2,
      fetchRounds: 254,
      prefetchedShare: 1,
      straightLineFp: 1_024,
    },
  });
  const row = (run: string, ms: number, lines: number) => ({ run, ms, cublasMs: 0.34, kernels: [kernel(lines)] });
  refusedWithUsage("prior-switches.ts", "bench:prior-switches", [
    [[], /one PROFILES.json \(bench:prior-profiles --out\) is needed/],
    [["a.json", "b.json"], /one PROFILES.json/],
    [["x.json", "--min-programs", "1"], /--min-programs must be an integer ≥ 2, got 1/],
    [[join("no", "such.json")], /no[/\\]such.json: ENOENT/],
  ]);
  // Files written here, named by what is wrong with them (the test names hold no temporary path).
  const malformed: [string, unknown, RegExp][] = [
    ["an object", { rows: [] }, /not a JSON array of bench:prior-profiles rows/],
    ["a row without kernels", [{ run: "r", ms: 1 }], /row 0 is not a bench:prior-profiles row/],
    ["one program", [row("r", 1, 10_000)], /no run has 60 programs/],
  ];
  it.each(malformed)(
    "a file of %s is refused with the usage",
    (name, rows, message) => {
      const r = runScript("prior-switches.ts", file(`${name.replaceAll(" ", "-")}.json`, rows));
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain("usage: bench:prior-switches");
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );

  it("judges each switch on the profiles: charged to the shared data path, more lines rank slower", () => {
    // One run whose slower programs touch more global lines: only the data path sees them.
    const rows = [0, 1, 2, 3].map((k) => row("r", 0.36 + 0.05 * k, 10_000 + 20_000 * k));
    const r = runScript("prior-switches.ts", file("run.json", rows), "--min-programs", "4");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("4 programs, 1 runs of at least 4");
    expect(r.stdout).toMatch(/\| default \| 1\.000 \| 1\.0000 \| 1\.000 \|/);
    // Off the data path the four estimates are equal: they order nothing.
    expect(r.stdout).toMatch(/\| global lines off the shared data path \| 0\.000 \| 1\.0000 \| 0\.000 \|/);
    // The barrier setting is listed; these kernels have two blocks resident per SM, and it ranks them as the default does.
    expect(r.stdout).toMatch(/\| a barrier stall of 100 cycles for a block alone on its SM \| 1\.000 \| 1\.0000 \| 1\.000 \|/);
  }, 60_000);

  it("--pairs lists, per decision, the pairs of programs that differ in it alone, and those the model cannot tell apart", () => {
    const rows = [
      { ...row("r", 0.36, 10_000), decisions: [0, 0] },
      // A decision the model does not see: the same profile, measured 25% slower.
      { ...row("r", 0.45, 10_000), decisions: [0, 1] },
      // One it sees: three times A's global lines, slower on the GPU and in the estimate.
      { ...row("r", 0.6, 90_000), decisions: [1, 0] },
    ];
    const r = runScript("prior-switches.ts", file("pairs.json", rows), "--min-programs", "3", "--pairs");
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/\| 0 \| 1 \| 1\.667 \| 1\.\d{3} \| 0 \|/);
    expect(r.stdout).toMatch(/\| 1 \| 1 \| 1\.250 \| 1\.000 \| 1 \|/);
  }, 60_000);
});

describe("bench:search-offline command line", () => {
  refusedWithUsage("search-offline.bench.ts", "bench:search-offline", [
    [["--variants", "default,bigger"], /--variants: unknown variant "bigger"/],
    [["--seeds", "3-1"], /--seeds: the range "3-1" is empty/],
    [["--seeds", "x"], /--seeds: "x" is not a seed or a range a-b/],
    [["--runs", "no/such/folder"], /no folder no\/such\/folder/],
    [["--merge"], /--merge needs report files/],
    [["--trials", "0"], /--trials must be a positive integer, got "0"/],
    [["--workers", "0,x"], /--workers must be non-negative integers separated by commas, got "x"/],
    [["--last-batch-sees-first"], /--last-batch-sees-first needs --overlap/],
  ]);

  it("--merge keeps rows of one variant and seed apart when one searched its last batch after the first was measured", () => {
    const row = (lastBatchSeesFirst: boolean, at64: number) => ({
      variant: "default",
      seed: 400,
      bestAt: { 64: at64, 128: null, 256: null },
      bestTrial: 40,
      recordedShare: 0.5,
      wallSeconds: 60,
      bestDecisions: [],
      overlap: true,
      ...(lastBatchSeesFirst ? { lastBatchSeesFirst } : {}),
    });
    const report = join(bundleDir, "screen.json");
    writeFileSync(
      report,
      JSON.stringify({ date: "", device: "H200", runs: 1, programs: 64, cublasMs: 0.34, trials: 64, rows: [row(false, 1.081), row(true, 1.048)] }),
    );
    const r = runScript("search-offline.bench.ts", "--merge", report);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\| default \(overlap\) \| defaults \| 1 \| 0 of 1 \| 1\.081× \|/);
    expect(r.stdout).toMatch(/\| default \(overlap, last batch sees first\) \| defaults \| 1 \| 0 of 1 \| 1\.048× \|/);
  });
});

describe("bench:search-offline --merge of a bad report", () => {
  // Regression: a missing or foreign report ended in readFileSync's ENOENT or a TypeError's stack trace.
  it.each([
    [["no/such/report.json"], /cannot read the report no\/such\/report.json/],
    [[join(benchDir, "..", "package.json")], /package.json is not a report of bench:search-offline --out/],
  ])(
    "%j is refused with its name",
    (args, message) => {
      const r = runScript("search-offline.bench.ts", "--merge", ...args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );
});
