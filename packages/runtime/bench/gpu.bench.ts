/**
 * `pnpm bench:gpu`: Tessera's generated kernels, built with `build()`, checked and timed on the
 * local GPU with timeEvaluator (number=3, repeat=10, minRepeatMs=100, the course's settings):
 *   - vector add and window sum, 2^24 fp32 (checked in full against a JS reference)
 *   - the naive and the full manual gemm+ReLU+add schedules at 2048³ fp32 (checked in full
 *     against a float64 reference computed on the GPU by a trusted one-thread-per-output kernel)
 *   - the hand-written naive CUDA kernel, launch overhead (empty kernel), NVRTC compile latency
 *   - torch relu(A@B)+C (cuBLAS, TF32 off) when python3 with torch is present
 * Inputs are fresh uniform [-1, 1]; outputs are poisoned with NaN before each checked run and
 * before timing (and checked again after timing); tolerance rtol = atol = 1e-4.
 * Writes gpu-runtime.json and gpu-runtime.md to --out-dir (default docs/benchmarks).
 *
 * `--dry-run` (or `--sim`): the same workloads and checks on the sim device (the GPU simulator) at
 * small sizes, the generated CUDA compiled with nvcc when present; times are simulator wall
 * clock. Writes to --out-dir (default $TMPDIR/tessera-bench-dry-run, never docs/benchmarks).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { gemmReluAddReferenceOnHost } from "@tessera/corpus";
import { build, compileCuda, cuda, nvccStatus, nvrtcStatus, occupancyLimits, theoreticalOccupancy, type BuiltModule, type ModuleTiming } from "../src/index.js";
import { benchArgs, disposeReferences, gpuGemmReference } from "./gpu-harness.js";
import { benchHandwrittenGemm, benchLaunchOverhead, benchTorch, type CompileLatency, type LaunchOverhead, type TorchResult } from "./gpu-handwritten.js";
import { checkOutput, elementwiseReference, randomUniform, workloads, type CheckResult, type Workload } from "./gpu-workloads.js";
import { renderMarkdown, renderTable, type BenchReport, type NcuSummary, type ResultRow } from "./gpu-report.js";
import { bankModelCounts } from "./gpu-bank-model.js";
import { ncuProfile, ncuProfileCublas } from "./gpu-ncu.js";

const TIMING = { number: 3, repeat: 10, minRepeatMs: 100 } as const;
const TOLERANCE = 1e-4;
const DRY_RUN_TARGET = "nvidia/h100";

interface Mode {
  dryRun: boolean;
  outDir: string;
  seed: number;
  /** Also read Nsight Compute counters of the GEMM kernels (the bench re-runs itself under ncu). */
  ncu: boolean;
  /** Internal: launch each GEMM kernel once and exit (what `--ncu` profiles). */
  profileOnce: boolean;
  /** Run only the workloads whose id contains one of these (all when empty). */
  only: string[];
}

function parseMode(argv: readonly string[]): Mode {
  const dryRun = argv.includes("--dry-run") || argv.includes("--sim");
  const at = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const outDir = resolve(at("--out-dir") ?? (dryRun ? join(tmpdir(), "tessera-bench-dry-run") : "docs/benchmarks"));
  const seedText = at("--seed");
  const seed = seedText === undefined ? Math.floor(Math.random() * 0x7fffffff) + 1 : Number(seedText);
  const only = (at("--only") ?? "").split(",").filter((x) => x.length > 0);
  return { dryRun, outDir, seed, ncu: argv.includes("--ncu"), profileOnce: argv.includes("--profile-once"), only };
}

/** Compile latency of a built module's source: NVRTC (or nvcc) cold, then the best of two warm compiles, cache off. */
async function compileLatency(mod: BuiltModule, dryRun: boolean): Promise<CompileLatency | undefined> {
  if (dryRun) {
    // No GPU: compile the generated CUDA for the target's arch with nvcc, once, to show it compiles.
    if (!(await nvccStatus()).ok) return undefined;
    const c = await compileCuda(mod.source, { backend: "nvcc", arch: mod.lowered.target.arch, cache: false, ptxasVerbose: true, name: `${mod.name}.cu` });
    const fns = c.ptxas?.functions ?? [];
    return {
      coldMs: c.compileMs,
      warmMs: undefined,
      compiler: `nvcc (${c.target})`,
      ...(fns.length === 0
        ? {}
        : {
            registers: Math.max(...fns.map((f) => f.registers)),
            sharedBytes: Math.max(...fns.map((f) => f.sharedBytes)),
            spills: fns.reduce((n, f) => n + f.spillLoadBytes + f.spillStoreBytes, 0),
            resourcesFrom: "ptxas -v",
          }),
    };
  }
  const cold = mod.compiled;
  if (cold === undefined) return undefined;
  const warm: number[] = [];
  for (let i = 0; i < 2; i++) {
    const again = await build(mod.lowered, undefined, { device: "cuda", cacheDir: false });
    warm.push(again.compiled?.compileMs ?? Number.NaN);
    again.dispose();
  }
  const attrs = mod.attributes() ?? [];
  return {
    coldMs: cold.compileMs,
    warmMs: Math.min(...warm),
    compiler: `${cold.backend} (${cold.target}${cold.output === "ptx" ? ", PTX" : ""})`,
    registers: Math.max(...attrs.map((a) => a.numRegs)),
    sharedBytes: Math.max(...attrs.map((a) => a.staticSharedBytes)),
    spills: attrs.reduce((s, a) => s + a.localBytes, 0),
    resourcesFrom: `driver attributes (max over ${attrs.length} kernel${attrs.length === 1 ? "" : "s"}; spill = local bytes)`,
  };
}

async function benchWorkload(w: Workload, mode: Mode): Promise<ResultRow> {
  const device = mode.dryRun ? "sim" : "cuda";
  const t0 = performance.now();
  // Cache off: the first build is the cold compile of this source.
  const mod = await build(w.schedule(), mode.dryRun ? DRY_RUN_TARGET : "cuda", { device, cacheDir: false });
  const buildMs = performance.now() - t0;
  const host = mod.params.map((p, i) => {
    if (p.kind !== "buffer") throw new Error(`${w.id}: scalar parameter ${p.name} is not supported by the bench`);
    return i === mod.params.length - 1 ? new Float32Array(p.elements).fill(Number.NaN) : randomUniform(p.elements, mode.seed + 7919 * i);
  });
  const args = benchArgs(mod, host);
  try {
    args.poisonOutput();
    mod(...args.values);
    const got = args.readOutput();
    const inputs = host.slice(0, -1);
    const [reference, refName] =
      w.kind === "gemm"
        ? mode.dryRun
          ? [gemmReluAddReferenceOnHost(inputs[0] as Float32Array, inputs[1] as Float32Array, inputs[2] as Float32Array, w.n), "float64 JS reference"]
          : [await gpuGemmReference(args, w.n), "float64 GPU reference"]
        : [elementwiseReference(w.kind, inputs, w.n), "JS reference"];
    let check: CheckResult = checkOutput(got, reference, TOLERANCE, TOLERANCE, refName);
    const races = mod.lastSimulation?.raceCount ?? 0;
    if (races > 0) check = { ...check, ok: false, summary: `FAIL: ${races} shared-memory races in the simulator; ${check.summary}` };
    args.poisonOutput();
    const timing: ModuleTiming = await mod.timeEvaluator(TIMING)(...args.values);
    const after = checkOutput(args.readOutput(), reference, TOLERANCE, TOLERANCE, refName);
    if (!after.ok) check = { ...check, ok: false, summary: `${check.summary}; after timing: ${after.summary}` };
    const compile = await compileLatency(mod, mode.dryRun);
    console.log(`${w.id} (${w.size}): ${timing.median.toPrecision(4)} ms ${timing.clock}; ${check.summary}`);
    const bankModel = w.bankModel === undefined ? undefined : bankModelCounts(w.bankModel.schedule(), w.bankModel.size, mod.lowered.target, mode.seed);
    const threads = Math.max(...mod.kernels.map((k) => k.block[0] * k.block[1] * k.block[2]));
    return {
      id: w.id,
      kernel: w.label,
      source: "build()",
      size: w.size,
      timing,
      clock: timing.clock,
      gflops: w.flops / (timing.median / 1e3) / 1e9,
      gbps: w.bytes / (timing.median / 1e3) / 1e9,
      isGemm: w.kind === "gemm",
      check,
      compile,
      buildMs,
      kernels: mod.kernels.map((k) => `${k.name} grid [${k.grid.join(",")}] block [${k.block.join(",")}]`),
      bankModel,
      occupancy: occupancyOf(threads, compile, mode.dryRun),
    };
  } finally {
    args.dispose();
    mod.dispose();
  }
}

/** Theoretical occupancy on device 0 from the kernel's registers and shared memory (GPU runs only). */
function occupancyOf(threads: number, compile: CompileLatency | undefined, dryRun: boolean): ResultRow["occupancy"] {
  if (dryRun || compile?.registers === undefined || compile.sharedBytes === undefined) return undefined;
  const dev = cuda.device(0);
  const occ = theoreticalOccupancy(
    { threadsPerBlock: threads, registersPerThread: compile.registers, sharedBytesPerBlock: compile.sharedBytes },
    occupancyLimits(dev.arch, dev),
  );
  return { ...occ, threads };
}

/** Launches each GEMM workload's kernel once (for ncu) and prints the ids in launch order. */
async function profileOnce(mode: Mode): Promise<void> {
  const ids: string[] = [];
  for (const w of workloads(false).filter((w) => w.kind === "gemm" && selected(w.id, mode))) {
    const mod = await build(w.schedule(), "cuda", { device: "cuda", cacheDir: false });
    const host = mod.params.map((p, i) => (p.kind === "buffer" ? randomUniform(p.elements, mode.seed + 7919 * i) : new Float32Array(0)));
    const args = benchArgs(mod, host);
    mod(...args.values);
    cuda.synchronize();
    args.dispose();
    mod.dispose();
    ids.push(w.id);
  }
  console.log(JSON.stringify({ profiled: ids }));
}

function selected(id: string, mode: Mode): boolean {
  return mode.only.length === 0 || mode.only.some((o) => id.includes(o));
}

/** Nsight Compute counters of the generated GEMM kernels and of cuBLAS, or why there are none. */
async function ncuCounters(mode: Mode): Promise<NcuSummary> {
  const self = [
    process.execPath,
    ...process.execArgv,
    process.argv[1] ?? "",
    "--profile-once",
    "--seed",
    String(mode.seed),
    ...(mode.only.length > 0 ? ["--only", mode.only.join(",")] : []),
  ];
  const ours = await ncuProfile(self, "^gemm_relu_add_kernel");
  if (!ours.ok) return { ok: false, reason: ours.reason };
  const ids = workloads(false)
    .filter((w) => w.kind === "gemm" && selected(w.id, mode))
    .map((w) => w.id);
  if (ours.kernels.length !== ids.length)
    return { ok: false, reason: `ncu profiled ${ours.kernels.length} kernels, expected ${ids.length} (${ids.join(", ")})` };
  const cublas = await ncuProfileCublas();
  return {
    ok: true,
    version: ours.version,
    byId: Object.fromEntries(ids.map((id, i) => [id, ours.kernels[i]!])),
    cublas: cublas.ok ? cublas.kernels[0] : undefined,
    cublasSkipped: cublas.ok ? undefined : cublas.reason,
  };
}

/** The kernel driver's version (e.g. "580.159.04") from /proc, where Linux exposes it. */
function kernelDriverVersion(): string | undefined {
  const f = "/proc/driver/nvidia/version";
  if (!existsSync(f)) return undefined;
  return /Kernel Module\s+(?:for \S+\s+)?([\d.]+)/.exec(readFileSync(f, "utf8"))?.[1];
}

function deviceSummary(dryRun: boolean): BenchReport["device"] {
  if (dryRun) return { name: `simulator on the CPU (dry run; generated for ${DRY_RUN_TARGET})` };
  const dev = cuda.device(0);
  return {
    name: dev.name,
    computeCapability: dev.computeCapability.join("."),
    multiprocessors: dev.multiprocessorCount,
    memoryGiB: +(dev.totalMemoryBytes / 2 ** 30).toFixed(1),
    driver: kernelDriverVersion(),
    driverCudaVersion: cuda.driverVersionString(),
    driverVersionRaw: cuda.driverVersion(),
  };
}

async function main(): Promise<void> {
  const mode = parseMode(process.argv.slice(2));
  if (mode.profileOnce) return profileOnce(mode);
  if (!mode.dryRun && !cuda.available()) {
    console.error(`bench:gpu: CUDA unavailable: ${cuda.unavailableReason()}\n(run with --dry-run to exercise the same checks in the simulator)`);
    process.exit(1);
  }
  const device = deviceSummary(mode.dryRun);
  const nv = nvrtcStatus();
  const nvcc = mode.dryRun ? await nvccStatus() : undefined;
  const nvccRelease = /release [\d.]+/.exec(nvcc?.version ?? "")?.[0];
  const compiler = mode.dryRun ? (nvcc?.ok === true ? `nvcc ${nvccRelease ?? ""}`.trim() : "none (dry run)") : nv.ok ? (nv.version ?? "nvrtc") : "nvcc";
  console.log(`${mode.dryRun ? "DRY RUN: " : ""}${device.name}; compiler: ${compiler}; seed ${mode.seed}`);

  const all = workloads(mode.dryRun).filter((w) => selected(w.id, mode));
  const rows: ResultRow[] = [];
  for (const w of all) rows.push(await benchWorkload(w, mode));

  const gemmN = all.find((w) => w.id === "gemm_manual")?.n ?? 2048;
  let launch: LaunchOverhead | undefined;
  let torch: TorchResult = { ok: false, reason: "dry run (no GPU)" };
  if (!mode.dryRun) {
    const hw = await benchHandwrittenGemm(gemmN, mode.seed + 100, TIMING);
    console.log(`hand-written naive gemm: ${hw.timing.median.toPrecision(4)} ms; ${hw.check.summary}`);
    rows.push({
      id: "gemm_handwritten",
      kernel: "hand-written naive gemm+relu+add (16×16 blocks)",
      source: "hand-written CUDA",
      size: `${gemmN}³ fp32`,
      timing: hw.timing,
      clock: "cuda-events",
      gflops: (2 * gemmN ** 3) / (hw.timing.median / 1e3) / 1e9,
      gbps: (16 * gemmN * gemmN) / (hw.timing.median / 1e3) / 1e9,
      isGemm: true,
      check: hw.check,
      compile: hw.compile,
      buildMs: undefined,
      kernels: ["gemm_relu_add"],
    });
    launch = await benchLaunchOverhead(TIMING);
    torch = await benchTorch(gemmN);
    disposeReferences();
  }
  let ncu: NcuSummary = { ok: false, reason: mode.dryRun ? "dry run (no GPU)" : "not requested (pass --ncu)" };
  if (mode.ncu && !mode.dryRun) {
    ncu = await ncuCounters(mode);
    if (!ncu.ok) console.log(`ncu: skipped (${ncu.reason})`);
  }

  const report: BenchReport = {
    date: new Date().toISOString(),
    mode: mode.dryRun ? "dry-run (simulator, small sizes; times are simulator wall clock, not GPU time)" : "gpu",
    seed: mode.seed,
    device,
    compiler,
    node: process.version,
    timing: {
      method: mode.dryRun
        ? "timeEvaluator (TVM semantics) around whole simulator runs, wall clock; ms per run"
        : "timeEvaluator (TVM semantics), CUDA events around a native launch loop; ms per run",
      ...TIMING,
    },
    tolerance: { rtol: TOLERANCE, atol: TOLERANCE },
    sizes: Object.fromEntries(all.map((w) => [w.id, w.size])),
    rows,
    launch,
    torch,
    ncu,
    gemmN,
  };
  console.log("");
  console.log(renderTable(report));
  if (launch !== undefined)
    console.log(
      `\nlaunch overhead (empty kernel): ${launch.eventUsPerLaunch.toFixed(2)} µs/launch in the native loop; ${launch.jsUsPerLaunch.toFixed(2)} µs/launch from JS`,
    );
  if (!torch.ok) console.log(`torch: skipped (${torch.reason})`);

  mkdirSync(mode.outDir, { recursive: true });
  writeFileSync(join(mode.outDir, "gpu-runtime.json"), JSON.stringify(jsonReport(report), null, 2) + "\n");
  writeFileSync(join(mode.outDir, "gpu-runtime.md"), renderMarkdown(report));
  console.log(`wrote ${join(mode.outDir, "gpu-runtime.json")} and gpu-runtime.md`);
  const failed = rows.filter((r) => !r.check.ok);
  if (failed.length > 0) {
    console.error(`bench:gpu: checks FAILED for ${failed.map((r) => r.id).join(", ")}`);
    process.exitCode = 1;
  }
}

function jsonReport(r: BenchReport): unknown {
  const cublas = r.torch.ok ? r.torch.gemm.median : undefined;
  return {
    date: r.date,
    mode: r.mode,
    seed: r.seed,
    device: r.device,
    compiler: r.compiler,
    node: r.node,
    timing: r.timing,
    tolerance: r.tolerance,
    sizes: r.sizes,
    results: r.rows.map((row) => ({
      id: row.id,
      kernel: row.kernel,
      source: row.source,
      size: row.size,
      clock: row.clock,
      medianMs: row.timing.median,
      meanMs: row.timing.mean,
      minMs: row.timing.min,
      maxMs: row.timing.max,
      stdMs: row.timing.std,
      number: row.timing.number,
      samplesMs: row.timing.samples,
      gflops: row.gflops,
      gbps: row.gbps,
      ratioToCublas: row.isGemm && cublas !== undefined ? row.timing.median / cublas : undefined,
      check: {
        status: row.check.ok ? "pass" : "FAIL",
        summary: row.check.summary,
        mismatches: row.check.mismatches,
        unwritten: row.check.unwritten,
        maxAbsError: row.check.maxAbsError,
      },
      compileMs: row.compile === undefined ? undefined : { compiler: row.compile.compiler, cold: row.compile.coldMs, warm: row.compile.warmMs },
      buildMs: row.buildMs,
      resources:
        row.compile?.registers === undefined
          ? undefined
          : { from: row.compile.resourcesFrom, registers: row.compile.registers, sharedBytes: row.compile.sharedBytes, spillBytes: row.compile.spills },
      kernels: row.kernels,
      occupancy: row.occupancy,
      ncu: r.ncu.ok ? r.ncu.byId[row.id]?.metrics : undefined,
      simulatorBankModel: row.bankModel,
    })),
    launchOverhead:
      r.launch === undefined
        ? { skipped: "dry run (no GPU)" }
        : {
            nativeLoopUsPerLaunch: r.launch.eventUsPerLaunch,
            jsIssuedUsPerLaunch: r.launch.jsUsPerLaunch,
            number: r.launch.number,
            compileMs: { compiler: r.launch.compile.compiler, cold: r.launch.compile.coldMs, warm: r.launch.compile.warmMs },
          },
    torch: r.torch.ok
      ? {
          version: r.torch.torch,
          cuda: r.torch.cuda,
          device: r.torch.device,
          gemm: {
            expression: "A @ B",
            medianMs: r.torch.gemm.median,
            minMs: r.torch.gemm.min,
            bothRunsMs: r.torch.gemmRuns,
            checkFloat64: r.torch.gemmCheckOk ? "pass" : "FAIL",
          },
          fused: {
            expression: "relu(A @ B) + C",
            medianMs: r.torch.fused.median,
            minMs: r.torch.fused.min,
            ratioToCublas: r.torch.fused.median / r.torch.gemm.median,
            checkFloat64: r.torch.checkOk ? "pass" : "FAIL",
          },
        }
      : { skipped: r.torch.reason },
    ncu: r.ncu.ok ? { version: r.ncu.version, cublas: r.ncu.cublas, cublasSkipped: r.ncu.cublasSkipped } : { skipped: r.ncu.reason },
  };
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
