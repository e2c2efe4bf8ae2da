/**
 * `pnpm bench:cpu`: the d2l CPU operators compiled by Tessera's C target (the book's schedules:
 * parallel, vectorize, unroll, tiling), against NumPy on OpenBLAS (bench-python.ts's Python: .venv-bench,
 * or Debian's python3-numpy, installed with apt-get when missing), PyTorch on the CPU (oneDNN; cpu-torch.ts, skipped with a
 * line saying why when torch is not installed) and Tessera's JS executor, in one run. Writes
 * docs/benchmarks/cpu-operators.{md,json} and one GFLOPS-against-size chart per operator
 * (docs/benchmarks/cpu-<op>.svg and .png).
 *
 *   pnpm bench:cpu [--quick] [--ops matmul,conv2d] [--out DIR] [--executor-max-flops N] [--clock wall|cpu]
 *
 * `--clock cpu` (for a loaded machine): Tessera, NumPy and PyTorch each on one thread, timed by the CPU
 * time of their process, so the waits for a core drop out of every figure.
 *
 * Timings: Tessera with its timeEvaluator (TVM semantics: warm-up, repeat 5 samples of ≥ 50 ms,
 * median); NumPy with the same scheme in Python right after, on the same case (the fastest NumPy
 * formulation of each operator counts); the JS executor with 3 single runs, only where a run is cheap enough.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type TypedArray, compilePrimFunc, randomArgs } from "@tessera/ir";
import { build, probeCCompiler, timeEvaluator } from "../src/index.js";
import * as d2l from "@tessera/corpus/d2l-cpu";
import { type ChartPoint, writeChart } from "./cpu-charts.js";
import { benchPython } from "./bench-python.js";
import { TORCH_INSTALL, type TorchInfo, runTorch, torchInfo } from "./cpu-torch.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const PYTHON = benchPython();
const NUMPY_SCRIPT = fileURLToPath(new URL("./cpu_numpy_reference.py", import.meta.url));

interface BenchCase {
  /** The x value of the chart. */
  readonly size: number;
  readonly label: string;
  readonly numpy: Record<string, unknown>;
  make(): d2l.ScheduledOperator;
  /** Lower bound of the random inputs (batch norm's variance must stay positive). */
  readonly low?: number;
}

interface BenchOperator {
  readonly op: string;
  readonly title: string;
  readonly xTitle: string;
  readonly cases: readonly BenchCase[];
}

function operators(quick: boolean): BenchOperator[] {
  const pick = <T>(full: T[], few: T[]): T[] => (quick ? few : full);
  const conv = (channels: number) => ({ channels, size: 64, kernel: 3, padding: 1 });
  const channels = pick([16, 32, 64, 128, 256], [32, 128]);
  return [
    {
      op: "vector_add",
      title: "Vector add",
      xTitle: "n (elements)",
      cases: pick([2 ** 12, 2 ** 14, 2 ** 16, 2 ** 18, 2 ** 20, 2 ** 22, 2 ** 24], [2 ** 16, 2 ** 22]).map((n) => ({
        size: n,
        label: `n=${n}`,
        numpy: { op: "vector_add", n },
        make: () => d2l.vectorAddCpu(n),
      })),
    },
    {
      op: "broadcast_add",
      title: "Broadcast add (n×1 + n×n)",
      xTitle: "n",
      cases: pick([64, 128, 256, 512, 1024, 2048, 4096], [256, 2048]).map((n) => ({
        size: n,
        label: `${n}×1 + ${n}×${n}`,
        numpy: { op: "broadcast_add", n, m: n },
        make: () => d2l.broadcastAddCpu(n, n),
      })),
    },
    {
      op: "matmul",
      title: "Matrix multiplication (n×n, float32)",
      xTitle: "n",
      cases: pick([64, 128, 256, 512, 1024], [256, 1024]).map((n) => ({
        size: n,
        label: `${n}³`,
        numpy: { op: "matmul", n },
        make: () => d2l.matmulCpu(n),
      })),
    },
    {
      op: "conv2d",
      title: "conv2d (c→c channels, 64×64, 3×3, pad 1)",
      xTitle: "channels",
      cases: channels.map((c) => ({ size: c, label: `c=${c}`, numpy: { op: "conv2d", ...conv(c) }, make: () => d2l.conv2dCpu(conv(c)) })),
    },
    {
      op: "depthwise_conv2d",
      title: "Depthwise conv2d (64×64, 3×3, pad 1)",
      xTitle: "channels",
      cases: channels.map((c) => ({
        size: c,
        label: `c=${c}`,
        numpy: { op: "depthwise_conv2d", ...conv(c) },
        make: () => d2l.depthwiseConv2dCpu(conv(c)),
      })),
    },
    {
      op: "max_pool2d",
      title: "Max pooling (64×64, 3×3, pad 1, stride 1)",
      xTitle: "channels",
      cases: channels.map((c) => ({
        size: c,
        label: `c=${c}`,
        numpy: { op: "max_pool2d", ...conv(c), stride: 1 },
        make: () => d2l.maxPoolCpu({ ...conv(c), stride: 1 }),
      })),
    },
    {
      op: "avg_pool2d",
      title: "Average pooling (64×64, 3×3, pad 1, stride 1)",
      xTitle: "channels",
      cases: channels.map((c) => ({
        size: c,
        label: `c=${c}`,
        numpy: { op: "avg_pool2d", ...conv(c), stride: 1 },
        make: () => d2l.avgPoolCpu({ ...conv(c), stride: 1 }),
      })),
    },
    {
      op: "batch_norm",
      title: "Batch norm, inference (c×64×64)",
      xTitle: "channels",
      cases: channels.map((c) => ({
        size: c,
        label: `c=${c}`,
        numpy: { op: "batch_norm", channels: c, size: 64, kernel: 0, padding: 0 },
        make: () => d2l.batchNormCpu(c, 64),
        low: 0.1,
      })),
    },
  ];
}

/** NumPy for the benchmark's Python (bench-python.ts); Debian's python3-numpy (with OpenBLAS), installed with apt-get, when that is /usr/bin/python3 and it is missing. */
function ensureNumpy(): { version: string; blas: string } {
  const probe = (): string | undefined => {
    const r = spawnSync(PYTHON, ["-c", "import numpy; print(numpy.__version__)"], { encoding: "utf8" });
    return r.status === 0 ? r.stdout.trim() : undefined;
  };
  let version = probe();
  if (version === undefined && PYTHON !== "/usr/bin/python3")
    throw new Error(`bench:cpu: ${PYTHON} cannot import numpy (TESSERA_BENCH_PYTHON or .venv-bench); install it there`);
  if (version === undefined) {
    console.log("bench:cpu: NumPy is missing for /usr/bin/python3; installing python3-numpy and libopenblas0-pthread with apt-get");
    const install = ["install", "-y", "--no-install-recommends", "python3-numpy", "libopenblas0-pthread"];
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"];
    const run = (args: string[]): number | null =>
      spawnSync(sudo[0] ?? "apt-get", [...sudo.slice(1), ...(sudo.length > 0 ? ["apt-get"] : []), ...args], { stdio: "inherit", env }).status;
    if (run(install) !== 0 && (run(["update"]) !== 0 || run(install) !== 0)) {
      throw new Error("bench:cpu: could not install python3-numpy with apt-get; install it (apt-get install python3-numpy libopenblas0-pthread) and run again");
    }
    version = probe();
    if (version === undefined) throw new Error("bench:cpu: python3-numpy was installed but /usr/bin/python3 still cannot import numpy");
  }
  // NumPy 1.26 and later name their BLAS (a wheel's bundled OpenBLAS); Debian's older one links libblas.so.3.
  const named = spawnSync(
    PYTHON,
    ["-c", 'import numpy; b=numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]; print(b["name"], b.get("version", ""))'],
    {
      encoding: "utf8",
    },
  );
  let blas = named.status === 0 ? named.stdout.trim() : "unknown";
  if (named.status !== 0) {
    try {
      blas = realpathSync("/usr/lib/x86_64-linux-gnu/libblas.so.3");
    } catch {
      // another architecture or layout: say unknown
    }
  }
  return { version, blas };
}

interface NumpyResult {
  readonly ms: number;
  readonly variant: string;
  readonly variants: Record<string, number>;
}

function runNumpyOnce(cases: readonly Record<string, unknown>[], env: NodeJS.ProcessEnv): NumpyResult[] {
  const out = execFileSync(PYTHON, [NUMPY_SCRIPT], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 16 << 20, env });
  return out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as NumpyResult);
}

/**
 * NumPy with OpenBLAS's default threads (every core) and with one thread: on a loaded machine
 * OpenBLAS's threads can collapse, so the faster of the two is the reference (the stricter one for us).
 */
function runNumpy(cases: readonly Record<string, unknown>[]): NumpyResult[] {
  const single = runNumpyOnce(cases, { ...process.env, OPENBLAS_NUM_THREADS: "1", OMP_NUM_THREADS: "1" });
  if (cpuClock()) return single.map((s) => ({ ...s, variant: `${s.variant}, 1 thread` }));
  const threaded = runNumpyOnce(cases, process.env);
  return threaded.map((t, i) => {
    const s = single[i]!;
    const variants = {
      ...Object.fromEntries(Object.entries(t.variants).map(([k, v]) => [`${k}, all threads`, v])),
      ...Object.fromEntries(Object.entries(s.variants).map(([k, v]) => [`${k}, 1 thread`, v])),
    };
    return s.ms < t.ms ? { ms: s.ms, variant: `${s.variant}, 1 thread`, variants } : { ms: t.ms, variant: `${t.variant}, all threads`, variants };
  });
}

interface Row {
  readonly op: string;
  readonly label: string;
  readonly size: number;
  readonly flops: number;
  readonly tesseraMs: number;
  readonly tesseraSamplesMs: readonly number[];
  readonly numpyMs: number;
  readonly numpyVariant: string;
  readonly numpyVariantsMs: Record<string, number>;
  /** PyTorch's time, formulation and threads, where torch is installed and has the operator. */
  readonly torchMs: number | undefined;
  readonly torchVariant: string | undefined;
  readonly executorMs: number | undefined;
  /** Largest |tessera − executor| / (1 + |executor|) over the output, where the executor ran. */
  readonly maxError: number | undefined;
  readonly compileMs: number;
  /** The 1-minute load average when the case was measured. */
  readonly load1: number;
}

const gflops = (flops: number, ms: number): number => flops / ms / 1e6;

/** `--clock cpu`: every side on one thread, timed by its process's CPU time (TESSERA_BENCH_CLOCK for the Python references). */
const cpuClock = (): boolean => process.env.TESSERA_BENCH_CLOCK === "cpu";

/** The timeEvaluator's scheme (warm-up, 5 samples of ≥ 50 ms, median) on this process's CPU time, calls from JavaScript. */
async function cpuTimeEvaluator(call: () => void): ReturnType<typeof timeEvaluator> {
  return timeEvaluator(
    {
      warmup: call,
      timeBatch: (n) => {
        const t0 = process.cpuUsage();
        for (let i = 0; i < n; i++) call();
        const used = process.cpuUsage(t0);
        return (used.user + used.system) / 1e3;
      },
    },
    { number: 1, repeat: 5, minRepeatMs: 50 },
  );
}

/**
 * One case: Tessera timed, then NumPy on the same case right away (on a shared machine the load
 * changes by the minute, so the two sides of a ratio are measured seconds apart), then the check
 * against the JS executor.
 */
async function measureCase(c: BenchCase, executorMaxFlops: number, torch: TorchInfo): Promise<Row> {
  const op = c.make();
  const mod = await build(op.scheduled, "c");
  const args = randomArgs(op.original, 1, { low: c.low ?? -1, high: 1 });
  const timing = cpuClock() ? await cpuTimeEvaluator(() => mod(...args)) : await mod.timeEvaluator({ number: 1, repeat: 5, minRepeatMs: 50 })(...args);
  const np = runNumpy([c.numpy])[0]!;
  const pt = torch.available ? runTorch([c.numpy])[0] : undefined;
  let executorMs: number | undefined;
  let maxError: number | undefined;
  if (op.flops <= executorMaxFlops) {
    const ref = args.map((a) => a.slice() as TypedArray);
    const compiled = compilePrimFunc(op.original);
    const t = await timeEvaluator(
      {
        warmup: () => compiled.run(ref),
        timeBatch: (n) => {
          const t0 = performance.now();
          for (let i = 0; i < n; i++) compiled.run(ref);
          return performance.now() - t0;
        },
      },
      { number: 1, repeat: 3, minRepeatMs: 0 },
    );
    executorMs = t.median;
    const out = args.length - 1;
    const got = args[out] as Float32Array;
    const want = ref[out] as Float32Array;
    maxError = 0;
    for (let i = 0; i < want.length; i++) maxError = Math.max(maxError, Math.abs(got[i]! - want[i]!) / (1 + Math.abs(want[i]!)));
  }
  mod.dispose();
  return {
    op: op.name,
    label: c.label,
    size: c.size,
    flops: op.flops,
    tesseraMs: timing.median,
    tesseraSamplesMs: timing.samples,
    numpyMs: np.ms,
    numpyVariant: np.variant,
    numpyVariantsMs: np.variants,
    torchMs: pt?.ms,
    torchVariant: pt?.variant,
    executorMs,
    maxError,
    compileMs: mod.compiled.compileMs,
    load1: os.loadavg()[0]!,
  };
}

function fmt(x: number | undefined, digits = 2): string {
  return x === undefined ? "–" : x >= 100 ? x.toFixed(0) : x.toFixed(digits);
}

function markdown(rows: readonly Row[], ops: readonly BenchOperator[], meta: Record<string, unknown>): string {
  const lines: string[] = [
    "# CPU operators: Tessera's C target against NumPy (OpenBLAS), PyTorch (CPU) and the JS executor",
    "",
    "Generated by `pnpm bench:cpu` (packages/runtime/bench/cpu.bench.ts). The d2l book's CPU schedules",
    "(packages/corpus/src/d2l-cpu/schedules.ts; tile factors and parallelism chosen from the shape and the",
    "machine's cores by factors.ts) compiled by the C target (gcc -O3 -march=native -fopenmp),",
    "timed with the module's timeEvaluator (TVM semantics: warm-up, 5 samples of at least 50 ms, median).",
    "NumPy on OpenBLAS (the Python named below: .venv-bench or Debian's), timed the same way in the same run, with OpenBLAS's default",
    "threads and with one thread; where NumPy has several formulations of an operator, the fastest formulation",
    "and thread setting counts (named in the table). PyTorch on the CPU (the pinned CPU wheel or Debian's; oneDNN where the",
    "build has it) on matmul, conv2d, depthwise conv2d, pooling and batch norm, timed the same way with its default",
    "threads and with one thread (the faster counts, its thread count named). JS executor: 3 single runs where one run is cheap enough.",
    "",
    "**Noise:** the machine has 2 cores shared with other engineers' builds and tests during the run",
    `(load average ${meta["loadBefore"]} before, ${meta["loadAfter"]} after), so every number here is noisy;`,
    "each ratio's two sides are measured back to back (Tessera, then NumPy on the same case, seconds apart).",
    "",
    "| | |",
    "|---|---|",
    ...Object.entries(meta).map(([k, v]) => `| ${k} | ${String(v)} |`),
    "",
  ];
  for (const o of ops) {
    const mine = rows.filter((r) => r.op === o.cases[0]?.make().name);
    if (mine.length === 0) continue;
    lines.push(`## ${o.title}`, "", `![${o.title}](cpu-${mine[0]!.op}.png)`, "");
    lines.push(
      "| size | Tessera C GFLOPS | NumPy GFLOPS (formulation) | PyTorch GFLOPS (formulation, threads) | JS executor GFLOPS | Tessera / NumPy | Tessera / PyTorch | max rel. error vs executor | load (1 min) |",
    );
    lines.push("|---|---|---|---|---|---|---|---|---|");
    for (const r of mine) {
      const torch = r.torchMs === undefined ? "–" : `${fmt(gflops(r.flops, r.torchMs))} (${r.torchVariant})`;
      lines.push(
        `| ${r.label} | ${fmt(gflops(r.flops, r.tesseraMs))} | ${fmt(gflops(r.flops, r.numpyMs))} (${r.numpyVariant}) | ${torch} | ${r.executorMs === undefined ? "–" : fmt(gflops(r.flops, r.executorMs), 3)} | ${fmt(r.numpyMs / r.tesseraMs)}× | ${r.torchMs === undefined ? "–" : `${fmt(r.torchMs / r.tesseraMs)}×`} | ${r.maxError === undefined ? "–" : r.maxError.toExponential(1)} | ${r.load1.toFixed(1)} |`,
      );
    }
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: "boolean", default: false },
      ops: { type: "string" },
      out: { type: "string", default: join(repoRoot, "docs", "benchmarks") },
      "executor-max-flops": { type: "string", default: "1e8" },
      clock: { type: "string", default: "wall" },
    },
  });
  if (values.clock !== "wall" && values.clock !== "cpu") throw new Error(`bench:cpu: --clock is wall or cpu, not ${values.clock}`);
  if (values.clock === "cpu") {
    // One thread everywhere (set before the first library loads libgomp), CPU time on every side.
    process.env.TESSERA_BENCH_CLOCK = "cpu";
    process.env.OMP_NUM_THREADS = "1";
  }
  const wanted = values.ops?.split(",").map((s) => s.trim());
  const all = operators(values.quick === true);
  const ops = wanted === undefined ? all : all.filter((o) => wanted.includes(o.op));
  if (wanted !== undefined && ops.length !== wanted.length) {
    throw new Error(`bench:cpu: unknown operator in --ops ${values.ops}; known: ${all.map((o) => o.op).join(", ")}`);
  }
  const executorMaxFlops = Number(values["executor-max-flops"]);
  const numpy = ensureNumpy();
  const torch = torchInfo();
  if (!torch.available) console.log(`bench:cpu: PyTorch skipped: ${PYTHON} cannot import torch (${torch.why}); install it with: ${TORCH_INSTALL}`);
  const machine = d2l.machineProfile();
  const cc = await probeCCompiler();
  const load = (): string =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(", ");
  const meta: Record<string, unknown> = {
    date: new Date().toISOString(),
    cpu: `${os.cpus()[0]?.model ?? "?"} × ${os.cpus().length}`,
    "C compiler": `${cc.version}; OpenMP ${cc.openmp ? "on" : "OFF"}`,
    numpy: `${numpy.version} (${PYTHON}), BLAS ${numpy.blas}; threads: OpenBLAS's default (${os.cpus().length}, the cores) and 1`,
    pytorch: torch.available
      ? `${torch.version} (${PYTHON}), oneDNN ${torch.mkldnn ? "on" : "OFF"}; threads: every core (${torch.defaultThreads}) and 1`
      : `skipped: ${torch.why} (${TORCH_INSTALL})`,
    "Tessera threads": cpuClock()
      ? "1 (--clock cpu: every side on one thread, timed by its process's CPU time)"
      : `OpenMP's default (${os.cpus().length}) where a schedule has a parallel region`,
    "machine profile": `${machine.source}: parallel region ${machine.parallelRegionUs.toFixed(1)} µs, L1d ${machine.l1DataBytes / 1024} KiB, L2 ${machine.l2Bytes / 1024} KiB${machine.why === undefined ? "" : ` (${machine.why})`}`,
    loadBefore: load(),
  };
  const rows: Row[] = [];
  for (const o of ops) {
    for (const c of o.cases) {
      const r = await measureCase(c, executorMaxFlops, torch);
      rows.push(r);
      console.log(
        `${o.op} ${c.label}: Tessera ${fmt(gflops(r.flops, r.tesseraMs))} GFLOPS, NumPy ${fmt(gflops(r.flops, r.numpyMs))} GFLOPS (${r.numpyVariant}); Tessera/NumPy ${fmt(r.numpyMs / r.tesseraMs)}×` +
          (r.torchMs === undefined
            ? ""
            : `, PyTorch ${fmt(gflops(r.flops, r.torchMs))} GFLOPS (${r.torchVariant}); Tessera/PyTorch ${fmt(r.torchMs / r.tesseraMs)}×`) +
          ` (load ${load()})`,
      );
    }
  }
  meta["loadAfter"] = load();
  const outDir = values.out!;
  mkdirSync(outDir, { recursive: true });
  const stem = values.quick === true ? "cpu-operators-quick" : "cpu-operators";
  writeFileSync(join(outDir, `${stem}.json`), `${JSON.stringify({ meta, rows }, null, 2)}\n`);
  writeFileSync(join(outDir, `${stem}.md`), markdown(rows, ops, meta));
  for (const o of ops) {
    const name = o.cases[0]!.make().name;
    const points: ChartPoint[] = rows
      .filter((r) => r.op === name)
      .flatMap((r) => [
        { series: "Tessera C target", size: r.size, gflops: gflops(r.flops, r.tesseraMs) },
        { series: "NumPy (OpenBLAS)", size: r.size, gflops: gflops(r.flops, r.numpyMs) },
        ...(r.torchMs === undefined ? [] : [{ series: "PyTorch (CPU)", size: r.size, gflops: gflops(r.flops, r.torchMs) }]),
        ...(r.executorMs === undefined ? [] : [{ series: "Tessera JS executor", size: r.size, gflops: gflops(r.flops, r.executorMs) }]),
      ]);
    const written = await writeChart(join(outDir, `cpu-${name}.svg`), points, { title: `${o.title}: GFLOPS (2-core machine, noisy)`, xTitle: o.xTitle });
    console.log(`wrote ${written.join(", ")}`);
  }
  console.log(`wrote ${join(outDir, `${stem}.md`)}`);
}

await main();
