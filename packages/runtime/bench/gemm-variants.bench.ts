/**
 * `pnpm bench:gemm-variants`: a sweep of fastSchedule variants (gemm+ReLU+add, fp32, n³) in one
 * GPU run. For each variant (built-in list, or `--variants FILE.json`, see gemm-variant-list.ts):
 * apply `fastSchedule(n, {...FAST_PARAMS, ...params})`, lower, generate CUDA, compile with NVRTC
 * through `build()`, check every output against the float64 GPU reference (rtol = atol = 1e-4,
 * output poisoned with NaN before the checked run and before timing, checked again after), read
 * registers / local memory / shared memory from the driver, then time all variants in
 * interleaved rounds (CUDA events, timeEvaluator) and report the median of all samples.
 * cuBLAS (torch `A @ B`, TF32 off) and torch `relu(A@B)+C` are timed by python3 as `bench:gpu`
 * does, before, between and after the rounds; ratios are to the fastest of those medians.
 * Writes gemm-variants.md, gemm-variants.json and the fastest variants' CUDA to --out-dir.
 *
 * `--dry-run`: no GPU. Lowers every variant for nvidia/h100, generates CUDA and compiles it with
 * `nvcc -Xptxas -v` where nvcc exists (registers, spills, shared memory: a first filter), and with
 * `--simulate [N]` runs each in the simulator at N³ (default 256) against the executor, with race
 * checks. Writes every variant's CUDA too.
 *
 * Flags: --out-dir DIR, --variants FILE, --only a,b, --n N (default 2048), --rounds R (default 5),
 * --seed S, --top K (sources written on the GPU, default 3), --jobs J (dry-run nvcc processes, default 2),
 * --list (print the variants and their parameters, run nothing).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { codegenCuda, cudaTarget, lower } from "@tessera/codegen";
import { fastSchedule } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import { compareWithReference } from "@tessera/simulator";
import { NDArray, build, compileCuda, cuda, nvccStatus, nvrtcStatus, summarize, type BuiltModule } from "../src/index.js";
import { disposeGemmReluAddReference, gemmReluAddReference } from "./gemm-reference.js";
import { benchTorch, type TorchResult } from "./gpu-handwritten.js";
import { checkOutput, randomUniform } from "./gpu-workloads.js";
import { BUILTIN_VARIANTS, type GemmVariant, readVariantFile, variantParams } from "./gemm-variant-list.js";
import { type VariantResult, type VariantsReport, renderVariantsMarkdown, variantsJson } from "./gemm-variants-report.js";

const TOLERANCE = 1e-4;
const DRY_RUN_TARGET = "nvidia/h100";
/** One round's timing of one variant: timeEvaluator with these settings (samples of ≥ minRepeatMs). */
const ROUND_TIMING = { number: 3, repeat: 3, minRepeatMs: 40 } as const;

interface Mode {
  dryRun: boolean;
  simulateN: number | undefined;
  outDir: string;
  variants: GemmVariant[];
  n: number;
  rounds: number;
  seed: number;
  top: number;
  jobs: number;
}

function parseMode(argv: readonly string[]): Mode {
  const dryRun = argv.includes("--dry-run") || argv.includes("--sim");
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const intFlag = (flag: string, fallback: number, min: number): number => {
    const text = at(flag);
    if (text === undefined || text.startsWith("--")) return fallback;
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`${flag}: expected an integer ≥ ${min}, got ${text}`);
    return value;
  };
  const file = at("--variants");
  let variants = file === undefined ? [...BUILTIN_VARIANTS] : readVariantFile(resolve(file));
  const only = (at("--only") ?? "").split(",").filter((x) => x.length > 0);
  if (only.length > 0) {
    const unknown = only.filter((o) => !variants.some((v) => v.name === o));
    if (unknown.length > 0) throw new Error(`--only: no variant named ${unknown.join(", ")} (variants: ${variants.map((v) => v.name).join(", ")})`);
    variants = variants.filter((v) => only.includes(v.name));
  }
  const simulate = argv.includes("--simulate");
  return {
    dryRun,
    simulateN: simulate ? intFlag("--simulate", 256, 1) : undefined,
    outDir: resolve(at("--out-dir") ?? (dryRun ? join(tmpdir(), "tessera-gemm-variants-dry-run") : "gemm-variants-out")),
    variants,
    n: intFlag("--n", 2048, 1),
    rounds: intFlag("--rounds", 5, 1),
    seed: intFlag("--seed", Math.floor(Math.random() * 0x7fffffff) + 1, 1),
    top: intFlag("--top", 3, 0),
    jobs: intFlag("--jobs", 2, 1),
  };
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Runs `work` over `items` with at most `jobs` at a time, results in input order. */
async function pool<T, R>(items: readonly T[], jobs: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, worker));
  return out;
}

/** Lowering and CUDA generation of one variant at size n; the error, if any, as the result's failure. */
function generate(v: GemmVariant, n: number, target: string): { source: string; lowerMs: number; threads: number; dynamicSharedBytes: number } {
  const t0 = performance.now();
  const lowered = lower(fastSchedule(n, variantParams(v)), cudaTarget(target));
  const source = codegenCuda(lowered).source;
  const k = lowered.kernels[0]!;
  return {
    source,
    lowerMs: performance.now() - t0,
    threads: k.launch.block[0] * k.launch.block[1] * k.launch.block[2],
    dynamicSharedBytes: k.launch.dynamicSharedBytes,
  };
}

function emptyResult(v: GemmVariant): VariantResult {
  return { name: v.name, description: v.description, params: v.params, status: "ok", samplesMs: [] };
}

// ---------------------------------------------------------------------------------------------
// Dry run: lower, generate, ptxas -v, optionally simulate.

async function dryRunVariant(v: GemmVariant, mode: Mode, nvcc: boolean): Promise<VariantResult> {
  const r = emptyResult(v);
  try {
    const g = generate(v, mode.n, DRY_RUN_TARGET);
    Object.assign(r, { source: g.source, lowerMs: g.lowerMs, threads: g.threads, dynamicSharedBytes: g.dynamicSharedBytes });
    if (nvcc) {
      const c = await compileCuda(g.source, { backend: "nvcc", arch: "sm_90", cache: false, ptxasVerbose: true, name: `${v.name}.cu` });
      const f = c.ptxas?.functions[0];
      r.compileMs = c.compileMs;
      if (f !== undefined) {
        r.resources = {
          from: "ptxas -v",
          registers: f.registers,
          sharedBytes: f.sharedBytes,
          localBytes: f.stackFrameBytes,
          spillBytes: f.spillLoadBytes + f.spillStoreBytes,
        };
      }
    }
    if (mode.simulateN !== undefined) {
      const sn = mode.simulateN;
      const t0 = performance.now();
      const report = compareWithReference(lower(fastSchedule(sn, variantParams(v)), DRY_RUN_TARGET), gemmReluAdd(sn).func, {
        seed: mode.seed,
        rtol: TOLERANCE,
        atol: TOLERANCE,
        simulation: { bankConflicts: true },
      });
      const s = report.simulation;
      const banks = s.bankConflicts;
      if (banks !== undefined) {
        const per = (c: { wavefronts: number; instructions: number }) => (c.instructions === 0 ? 0 : c.wavefronts / c.instructions);
        r.bankModel = {
          size: `${sn}³`,
          loadWavefrontsPerInstruction: per(banks.loads),
          storeWavefrontsPerInstruction: per(banks.stores),
          loadConflicts: banks.loads.conflicts,
          storeConflicts: banks.stores.conflicts,
        };
      }
      const ok = report.passed && s.uninitializedReadCount === 0;
      r.check = {
        ok,
        summary:
          `${ok ? "PASS" : "FAIL"}: simulator at ${sn}³ vs the executor: ${report.mismatchCount} mismatches, ${s.raceCount} races, ` +
          `${s.uninitializedReadCount} uninitialised reads, max |Δ| ${report.maxAbsError.toExponential(2)} (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
      };
      if (!ok) r.status = "check-failed";
    }
  } catch (e) {
    r.status = "error";
    r.error = errorText(e);
  }
  const res = r.resources;
  console.log(
    `${v.name}: ${r.status === "error" ? `ERROR ${r.error}` : `${res === undefined ? "(no nvcc)" : `${res.registers} regs, ${res.spillBytes} B spilled, ${res.localBytes} B stack, ${res.sharedBytes} B smem + ${r.dynamicSharedBytes ?? 0} B dynamic`}${r.check === undefined ? "" : `; ${r.check.summary}`}`}`,
  );
  return r;
}

// ---------------------------------------------------------------------------------------------
// GPU run.

interface GpuOperands {
  readonly A: NDArray;
  readonly B: NDArray;
  readonly C: NDArray;
  readonly D: NDArray;
  readonly reference: Float64Array;
}

async function gpuOperands(n: number, seed: number): Promise<GpuOperands> {
  const [A, B, C] = [0, 1, 2].map((i) => NDArray.from(randomUniform(n * n, seed + 7919 * i), { shape: [n, n] }));
  const D = NDArray.empty([n, n], "float32");
  const reference = await gemmReluAddReference(A!, B!, C!, n);
  return { A: A!, B: B!, C: C!, D, reference };
}

async function buildVariant(v: GemmVariant, mode: Mode, ops: GpuOperands): Promise<{ result: VariantResult; mod: BuiltModule | undefined }> {
  const r = emptyResult(v);
  let mod: BuiltModule | undefined;
  try {
    // Lowered for the local GPU (its limits and architecture), compiled with NVRTC, cache off.
    const t0 = performance.now();
    mod = await build(fastSchedule(mode.n, variantParams(v)), "cuda", { device: "cuda", cacheDir: false });
    const k = mod.kernels[0]!;
    Object.assign(r, { source: mod.source, threads: k.block[0] * k.block[1] * k.block[2], dynamicSharedBytes: k.dynamicSharedBytes });
    r.compileMs = mod.compiled?.compileMs;
    r.lowerMs = performance.now() - t0 - (r.compileMs ?? 0);
    const attrs = mod.attributes() ?? [];
    r.resources = {
      from: "driver attributes",
      registers: Math.max(...attrs.map((a) => a.numRegs)),
      sharedBytes: Math.max(...attrs.map((a) => a.staticSharedBytes)),
      localBytes: Math.max(...attrs.map((a) => a.localBytes)),
      spillBytes: undefined,
    };
    ops.D.fill(Number.NaN);
    mod(ops.A, ops.B, ops.C, ops.D);
    const check = checkOutput(ops.D.toTypedArray() as Float32Array, ops.reference, TOLERANCE, TOLERANCE, "float64 GPU reference");
    r.check = { ok: check.ok, summary: check.summary };
    if (!check.ok) r.status = "check-failed";
  } catch (e) {
    r.status = "error";
    r.error = errorText(e);
  }
  console.log(
    `${v.name}: ${r.status === "error" ? `ERROR ${r.error}` : `${r.resources?.registers} regs, ${r.resources?.localBytes} B local; ${r.check?.summary}`}`,
  );
  if (r.status !== "ok") {
    mod?.dispose();
    mod = undefined;
  }
  return { result: r, mod };
}

/** `checkpoint` gets the report measured so far after the builds and after every round (a run cut short keeps them). */
async function runGpu(mode: Mode, checkpoint: (partial: VariantsReport) => void): Promise<VariantsReport> {
  const dev = cuda.device(0);
  const ops = await gpuOperands(mode.n, mode.seed);
  const built: { result: VariantResult; mod: BuiltModule | undefined }[] = [];
  const torchRuns: TorchResult[] = [];
  let roundsDone = 0;
  const snapshot = (): VariantsReport => {
    for (const { result } of built) {
      result.timing = result.status === "ok" && result.samplesMs.length > 0 ? summarize(result.samplesMs, ROUND_TIMING.number) : undefined;
    }
    const nv = nvrtcStatus();
    return {
      date: new Date().toISOString(),
      mode: roundsDone === mode.rounds ? "gpu" : `gpu (partial: ${roundsDone} of ${mode.rounds} rounds)`,
      device: `${dev.name} (sm_${dev.computeCapability.join("")}, ${dev.multiprocessorCount} SMs), driver CUDA ${cuda.driverVersionString()}`,
      compiler: nv.ok ? (nv.version ?? "nvrtc") : "nvcc",
      n: mode.n,
      seed: mode.seed,
      rounds: roundsDone,
      timing: `${roundsDone} interleaved rounds × timeEvaluator(number ≥ ${ROUND_TIMING.number}, repeat ${ROUND_TIMING.repeat}, minRepeatMs ${ROUND_TIMING.minRepeatMs}), CUDA events; median of all samples`,
      torch: torchRuns,
      results: built.map((b) => b.result),
    };
  };
  for (const v of mode.variants) built.push(await buildVariant(v, mode, ops));
  checkpoint(snapshot());
  const timed = built.filter((b) => b.mod !== undefined);

  const torch = async (): Promise<void> => {
    const t = await benchTorch(mode.n);
    torchRuns.push(t);
    console.log(t.ok ? `torch: A@B ${t.gemm.median.toPrecision(4)} ms, relu(A@B)+C ${t.fused.median.toPrecision(4)} ms` : `torch: skipped (${t.reason})`);
  };
  await torch();
  for (let round = 0; round < mode.rounds; round++) {
    // Each round starts at another variant, so that no variant always follows the same one.
    for (let i = 0; i < timed.length; i++) {
      const { result, mod } = timed[(i + round) % timed.length]!;
      if (result.status !== "ok") continue;
      try {
        const t = await mod!.timeEvaluator(ROUND_TIMING)(ops.A, ops.B, ops.C, ops.D);
        result.samplesMs.push(...t.samples);
      } catch (e) {
        // Reported, not fatal: the other variants' results still get written.
        result.status = "error";
        result.error = `timing: ${errorText(e)}`;
        console.log(`${result.name}: ERROR ${result.error}`);
      }
    }
    roundsDone = round + 1;
    console.log(`round ${roundsDone}/${mode.rounds} done`);
    if (round === Math.floor((mode.rounds - 1) / 2) && mode.rounds > 1) await torch();
    checkpoint(snapshot());
  }
  await torch();
  // The timing launches wrote D again and again: check the last result of each variant.
  for (const { result, mod } of timed) {
    try {
      if (result.status === "ok") {
        ops.D.fill(Number.NaN);
        mod!(ops.A, ops.B, ops.C, ops.D);
        const after = checkOutput(ops.D.toTypedArray() as Float32Array, ops.reference, TOLERANCE, TOLERANCE, "float64 GPU reference");
        if (!after.ok) {
          result.status = "check-failed";
          result.check = { ok: false, summary: `${result.check?.summary ?? ""}; after timing: ${after.summary}` };
        }
      }
      mod!.dispose();
    } catch (e) {
      result.status = "error";
      result.error = `check after timing: ${errorText(e)}`;
    }
  }
  try {
    for (const x of [ops.A, ops.B, ops.C, ops.D]) x.dispose();
    disposeGemmReluAddReference();
  } catch (e) {
    console.log(`cleanup: ${errorText(e)}`);
  }
  return snapshot();
}

async function runDry(mode: Mode): Promise<VariantsReport> {
  const nvcc = await nvccStatus();
  if (!nvcc.ok) console.log(`nvcc: ${nvcc.reason}; CUDA is generated but not compiled`);
  const results = await pool(mode.variants, mode.jobs, (v) => dryRunVariant(v, mode, nvcc.ok));
  return {
    date: new Date().toISOString(),
    mode: `dry-run (no GPU: lowered for ${DRY_RUN_TARGET}${mode.simulateN === undefined ? "" : `, simulated at ${mode.simulateN}³`})`,
    device: "none",
    compiler: nvcc.ok ? (nvcc.version ?? "nvcc") : "none",
    n: mode.n,
    seed: mode.seed,
    rounds: 0,
    timing: "none (dry run)",
    torch: [],
    results,
  };
}

/**
 * gemm-variants.md, gemm-variants.json and, unless `checkpoint`, CUDA sources (every variant's in a
 * dry run, the fastest `top` on the GPU; not at checkpoints, whose fastest may change: at most 8
 * files come back from a device run).
 */
function writeReport(mode: Mode, report: VariantsReport, checkpoint = false): { markdown: string; sources: number } {
  const markdown = renderVariantsMarkdown(report);
  writeFileSync(join(mode.outDir, "gemm-variants.md"), markdown);
  writeFileSync(join(mode.outDir, "gemm-variants.json"), JSON.stringify(variantsJson(report), null, 2) + "\n");
  const withSource = report.results.filter((r) => r.source !== undefined);
  const sources = checkpoint
    ? []
    : mode.dryRun
      ? withSource
      : withSource
          .filter((r) => r.timing !== undefined)
          .sort((a, b) => a.timing!.median - b.timing!.median)
          .slice(0, mode.top);
  if (mode.dryRun) mkdirSync(join(mode.outDir, "sources"), { recursive: true });
  for (const r of sources) writeFileSync(join(mode.outDir, mode.dryRun ? "sources" : "", `${r.name}.cu`), r.source!);
  return { markdown, sources: sources.length };
}

async function main(): Promise<void> {
  const mode = parseMode(process.argv.slice(2));
  if (process.argv.includes("--list")) {
    for (const v of mode.variants) console.log(`${v.name}: ${v.description}\n  ${JSON.stringify(v.params)}`);
    return;
  }
  if (!mode.dryRun && !cuda.available()) {
    console.error(
      `bench:gemm-variants: CUDA unavailable: ${cuda.unavailableReason()}\n(run with --dry-run to lower, compile with nvcc and simulate the variants without a GPU)`,
    );
    process.exit(1);
  }
  console.log(`${mode.dryRun ? "DRY RUN: " : ""}${mode.variants.length} variants of fastSchedule at ${mode.n}³; seed ${mode.seed}`);
  const t0 = performance.now();
  mkdirSync(mode.outDir, { recursive: true });
  const report = mode.dryRun
    ? await runDry(mode)
    : await runGpu(mode, (partial) => writeReport(mode, { ...partial, wallSeconds: (performance.now() - t0) / 1000 }, true));
  report.wallSeconds = (performance.now() - t0) / 1000;
  const { markdown, sources } = writeReport(mode, report);
  console.log("\n" + markdown);
  console.log(`wrote ${join(mode.outDir, "gemm-variants.md")}, gemm-variants.json and ${sources} CUDA sources (${report.wallSeconds.toFixed(1)} s)`);
  const failed = report.results.filter((r) => r.status !== "ok");
  if (failed.length > 0) {
    console.error(`bench:gemm-variants: ${failed.length} variants failed: ${failed.map((r) => `${r.name} (${r.status})`).join(", ")}`);
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
