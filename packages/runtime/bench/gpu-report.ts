/** The results table of `bench:gpu` as console text and as docs/benchmarks/gpu-runtime.md. */
import type { TimingResult } from "../src/index.js";
import type { CompileLatency, LaunchOverhead, TorchResult } from "./gpu-handwritten.js";
import { type BankModelCounts, bankModelWavefronts } from "./gpu-bank-model.js";
import { type NcuKernel, wavefrontsPerInstruction } from "./gpu-ncu.js";
import type { CheckResult } from "./gpu-workloads.js";

export interface ResultRow {
  id: string;
  kernel: string;
  source: "build()" | "hand-written CUDA";
  size: string;
  timing: TimingResult;
  clock: "cuda-events" | "simulator-wall-clock";
  gflops: number;
  gbps: number;
  isGemm: boolean;
  check: CheckResult;
  compile: CompileLatency | undefined;
  /** Wall time of build() (lowering, codegen and the cold compile). */
  buildMs: number | undefined;
  kernels: string[];
  /** The simulator's bank-conflict model of the same schedule at a smaller size. */
  bankModel?: BankModelCounts | undefined;
  /** Theoretical occupancy from the kernel's resources (GPU runs only). */
  occupancy?: { blocksPerMultiprocessor: number; fraction: number; limitedBy: string; threads: number } | undefined;
}

/** Nsight Compute counters by workload id, plus cuBLAS's SGEMM. */
export type NcuSummary =
  | { ok: true; version: string; byId: Record<string, NcuKernel>; cublas: NcuKernel | undefined; cublasSkipped: string | undefined }
  | { ok: false; reason: string };

export interface BenchReport {
  date: string;
  mode: string;
  seed: number;
  device: {
    name: string;
    computeCapability?: string;
    multiprocessors?: number;
    memoryGiB?: number;
    driver?: string | undefined;
    driverCudaVersion?: string | undefined;
    driverVersionRaw?: number | undefined;
  };
  compiler: string;
  node: string;
  timing: { method: string; number: number; repeat: number; minRepeatMs: number };
  tolerance: { rtol: number; atol: number };
  sizes: Record<string, string>;
  rows: ResultRow[];
  launch: LaunchOverhead | undefined;
  torch: TorchResult;
  ncu: NcuSummary;
  gemmN: number;
}

function fmt(x: number, d = 3): string {
  if (!Number.isFinite(x)) return "—";
  return x >= 100 ? x.toFixed(1) : x.toPrecision(d + 1);
}

/** Time over cuBLAS SGEMM (torch A @ B) of the same run: 1.08× means 8% slower. */
function ratio(ms: number, torch: TorchResult): string {
  return torch.ok ? `${(ms / torch.gemm.median).toFixed(2)}×` : "n/a";
}

function pct(x: number | undefined): string {
  return x === undefined ? "—" : `${x.toFixed(0)}%`;
}

/** Shared-memory wavefronts per load / store instruction (1.0 = conflict-free 32-bit accesses). */
function wavefronts(k: NcuKernel | undefined): string {
  if (k === undefined) return "—";
  const ld = wavefrontsPerInstruction(k.metrics, "load");
  const st = wavefrontsPerInstruction(k.metrics, "store");
  const f = (x: number | undefined) => (x === undefined ? "—" : x.toFixed(2));
  return `${f(ld)} / ${f(st)}`;
}

function conflicts(k: NcuKernel | undefined): string {
  if (k === undefined) return "—";
  const f = (x: number | undefined) => (x === undefined ? "—" : x.toLocaleString("en-US"));
  return `${f(k.metrics.sharedLoadBankConflicts)} / ${f(k.metrics.sharedStoreBankConflicts)}`;
}

/** kernel, size, median ms, min ms, TFLOP/s or GB/s, ratio to cuBLAS, resources, occupancy, ncu counters, check. */
export function tableRows(r: BenchReport): string[][] {
  const rows = [
    [
      "kernel",
      "size",
      "median ms",
      "min ms",
      "TFLOP/s | GB/s",
      "vs cuBLAS SGEMM",
      "regs",
      "smem B",
      "occupancy (theor. / achieved)",
      "SM throughput",
      "ncu smem wavefronts/instr ld / st",
      "simulator wavefronts/instr ld / st",
      "ncu bank conflicts ld / st",
      "check",
    ],
  ];
  const ncuOf = (id: string) => (r.ncu.ok ? r.ncu.byId[id] : undefined);
  for (const row of r.rows) {
    const k = ncuOf(row.id);
    rows.push([
      row.kernel,
      row.size,
      fmt(row.timing.median),
      fmt(row.timing.min),
      row.isGemm ? `${fmt(row.gflops / 1e3)} TFLOP/s` : `${fmt(row.gbps)} GB/s`,
      row.isGemm ? ratio(row.timing.median, r.torch) : "—",
      row.compile?.registers === undefined ? "—" : String(row.compile.registers),
      row.compile?.sharedBytes === undefined ? "—" : String(row.compile.sharedBytes),
      row.occupancy === undefined
        ? "—"
        : `${pct(row.occupancy.fraction * 100)} (${row.occupancy.blocksPerMultiprocessor}×${row.occupancy.threads}, ${row.occupancy.limitedBy}) / ${pct(k?.metrics.achievedOccupancyPct)}`,
      pct(k?.metrics.smThroughputPct),
      wavefronts(k),
      row.bankModel === undefined ? "—" : `${bankModelWavefronts(row.bankModel)} (${row.bankModel.size})`,
      conflicts(k),
      row.check.ok ? "pass" : "FAIL",
    ]);
  }
  if (r.torch.ok) {
    const tf = (ms: number) => `${fmt((2 * r.gemmN ** 3) / (ms / 1e3) / 1e12)} TFLOP/s`;
    const cublas = r.ncu.ok ? r.ncu.cublas : undefined;
    const size = `${r.gemmN}³ fp32`;
    rows.push([
      `torch A@B (cuBLAS SGEMM, TF32 off)${cublas === undefined ? "" : `: ${cublas.name.slice(0, 40)}`}`,
      size,
      fmt(r.torch.gemm.median),
      fmt(r.torch.gemm.min),
      tf(r.torch.gemm.median),
      "1.00×",
      "—",
      "—",
      `— / ${pct(cublas?.metrics.achievedOccupancyPct)}`,
      pct(cublas?.metrics.smThroughputPct),
      wavefronts(cublas),
      "—",
      conflicts(cublas),
      r.torch.gemmCheckOk ? "pass" : "FAIL",
    ]);
    rows.push([
      "torch relu(A@B)+C (eager, TF32 off)",
      size,
      fmt(r.torch.fused.median),
      fmt(r.torch.fused.min),
      tf(r.torch.fused.median),
      ratio(r.torch.fused.median, r.torch),
      "—",
      "—",
      "—",
      "—",
      "—",
      "—",
      "—",
      r.torch.checkOk ? "pass" : "FAIL",
    ]);
  }
  return rows;
}

export function renderTable(r: BenchReport): string {
  const rows = tableRows(r);
  const header = rows[0] as string[];
  const widths = header.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? "").length)));
  const line = (row: string[]): string => row.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

/** A markdown table row; a `|` inside a cell (the "TFLOP/s | GB/s" heading) is escaped. */
function markdownRow(cells: readonly string[]): string {
  return `| ${cells.map((c) => c.replace(/\|/g, "\\|")).join(" | ")} |`;
}

export function renderMarkdown(r: BenchReport): string {
  const rows = tableRows(r);
  const header = rows[0] as string[];
  const dev = r.device;
  const dry = r.launch === undefined && !r.torch.ok && r.mode.startsWith("dry-run");
  const compileRows = r.rows.map((row) => {
    const c = row.compile;
    return `| ${row.kernel} | ${c?.compiler ?? "—"} | ${c === undefined ? "—" : c.coldMs.toFixed(1)} | ${c?.warmMs === undefined ? "—" : c.warmMs.toFixed(1)} | ${c?.registers ?? "?"} | ${c?.sharedBytes ?? "?"} | ${c?.spills ?? "?"} |`;
  });
  if (r.launch !== undefined) {
    const c = r.launch.compile;
    compileRows.push(`| empty | ${c.compiler} | ${c.coldMs.toFixed(1)} | ${c.warmMs === undefined ? "—" : c.warmMs.toFixed(1)} | | | |`);
  }
  return [
    "# GPU runtime benchmark",
    "",
    `Generated by \`pnpm bench:gpu${dry ? " -- --dry-run" : ""}\` (packages/runtime/bench/gpu.bench.ts) on ${r.date.slice(0, 10)}.`,
    ...(dry
      ? ["", "> **Dry run**: the simulator on the CPU at small sizes. Times are simulator wall clock, not GPU time; only the checks mean anything."]
      : []),
    "",
    dev.computeCapability === undefined
      ? `- Device: **${dev.name}**`
      : `- GPU: **${dev.name}** (compute capability ${dev.computeCapability}, ${dev.multiprocessors} SMs, ${dev.memoryGiB} GiB)`,
    dev.computeCapability === undefined
      ? `- Compiler: ${r.compiler}; Node ${r.node}`
      : `- Driver: ${dev.driver ?? "version unknown"}, CUDA ${dev.driverCudaVersion} (cuDriverGetVersion ${dev.driverVersionRaw}); compiler: ${r.compiler}; Node ${r.node}`,
    `- Kernels: Tessera's generated kernels through \`build()\` (vector add, window sum, the naive, manual, cp.async-pipelined and fast gemm+ReLU+add schedules of @tessera/corpus)${dry ? "" : ", the hand-written naive CUDA kernel, and cuBLAS through torch"}`,
    `- Timing: timeEvaluator, number=${r.timing.number}, repeat=${r.timing.repeat}, minRepeatMs=${r.timing.minRepeatMs}; ${r.timing.method} (median of ${r.timing.repeat} samples)`,
    `- Checks: fresh uniform [-1, 1] inputs (seed ${r.seed}); the output poisoned with NaN before the checked run and before timing; every output compared at rtol = atol = ${r.tolerance.rtol} (gemm against float64${dry ? " on the host" : " computed on the GPU by a one-thread-per-output kernel"}; vector add and window sum against a JS reference), and again after timing`,
    "",
    markdownRow(header),
    `| ${header.map(() => "---").join(" | ")} |`,
    ...rows.slice(1).map(markdownRow),
    "",
    "Checks:",
    "",
    ...r.rows.map((row) => `- ${row.kernel}: ${row.check.summary}`),
    "",
    "| kernel | compiler | compile, cold (ms) | warm (ms) | registers | shared bytes | spill bytes |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...compileRows,
    "",
    r.launch === undefined
      ? "Launch overhead: not measured (dry run)."
      : `Launch overhead (empty kernel, 1×1): **${r.launch.eventUsPerLaunch.toFixed(2)} µs** per launch back-to-back in the native loop (CUDA events, number=${r.launch.number}); ${r.launch.jsUsPerLaunch.toFixed(2)} µs per launch when each is issued from JavaScript (wall clock, N-API call included).`,
    "",
    r.torch.ok
      ? `cuBLAS reference: torch ${r.torch.torch} (CUDA ${r.torch.cuda}), TF32 off, CUDA events, the same timing scheme: \`A @ B\` (SGEMM alone, the baseline of every ratio) **${r.torch.gemm.median.toFixed(3)} ms** (the better of two runs, before and after the fused one: ${r.torch.gemmRuns.map((x) => x.toFixed(3)).join(" and ")} ms), \`relu(A@B)+C\` ${r.torch.fused.median.toFixed(3)} ms (float64 checks: ${r.torch.gemmCheckOk ? "pass" : "FAIL"}, ${r.torch.checkOk ? "pass" : "FAIL"}).`
      : `cuBLAS reference: skipped (${r.torch.reason}).`,
    "",
    r.ncu.ok
      ? `Nsight Compute (${r.ncu.version}, --clock-control none): one launch of each GEMM kernel${r.ncu.cublas === undefined ? ` (cuBLAS not profiled: ${r.ncu.cublasSkipped})` : ` and of cuBLAS's \`${r.ncu.cublas.name}\``}. SM throughput = sm__throughput.avg.pct_of_peak_sustained_elapsed; achieved occupancy = sm__warps_active; wavefronts/instr = l1tex shared-memory wavefronts over shared load/store instructions; bank conflicts = l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld/st. The simulator column is Tessera's bank-conflict model (\`simulate(..., { bankConflicts: true })\`) of the same schedule at the size shown, counted per warp-level instruction of the generated CUDA (nvcc may merge scalar shared loads into wider ones, which ncu counts as fewer instructions).`
      : `Nsight Compute counters: ${r.ncu.reason}.`,
    "",
    "Cold compile = the first compile of that source in the process with the cache off (the very first NVRTC compile also pays NVRTC's own start-up); warm = best of two more. Generated kernels' resources come from the driver (max over the module's kernels).",
    "",
  ].join("\n");
}
