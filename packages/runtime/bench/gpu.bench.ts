/**
 * `pnpm bench:gpu`: hand-written CUDA kernels through @tessera/runtime, checked against CPU
 * references and timed with timeEvaluator (number=3, repeat=10, minRepeatMs=100):
 *   - vector add, 2^24 float32 (full output checked)
 *   - naive gemm + ReLU + add, 2048³ float32, one thread per output, 16×16 blocks
 *     (4096 sampled outputs checked against float64; every output checked written)
 *   - NVRTC compile latency per kernel (cache off), launch overhead (empty kernel)
 *   - torch relu(A@B)+C with CUDA events (TF32 off), when python3 with torch is present
 * Writes gpu-runtime.json and gpu-runtime.md to --out-dir (default docs/benchmarks under the
 * current directory).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { execa } from "execa";
import {
  compileCuda,
  cuda,
  loadModule,
  NDArray,
  nvrtcStatus,
  timeEvaluator,
  type KernelAttributes,
  type TimingResult,
} from "../src/index.js";

const TIMING = { number: 3, repeat: 10, minRepeatMs: 100 } as const;
const VEC_N = 1 << 24;
const GEMM_N = 2048;
const GEMM_SAMPLES = 4096;

const KERNELS = {
  vadd: `
extern "C" __global__ void vadd(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}`,
  gemm_relu_add: `
// D = relu(A @ B) + C, row-major n×n, one thread per output element.
extern "C" __global__ void gemm_relu_add(const float* __restrict__ A, const float* __restrict__ B,
                                         const float* __restrict__ C, float* __restrict__ D, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
  D[row * n + col] = fmaxf(acc, 0.0f) + C[row * n + col];
}`,
  empty: `extern "C" __global__ void empty() {}`,
} as const;

const TORCH_SCRIPT = `
import json, os, torch
n = int(os.environ["TESSERA_N"])
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
g = torch.Generator(device="cuda").manual_seed(0)
A = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
B = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
C = torch.rand(n, n, device="cuda", generator=g) * 2 - 1
def f():
    return torch.relu(A @ B) + C
for _ in range(3):
    f()
torch.cuda.synchronize()
s = torch.cuda.Event(enable_timing=True)
e = torch.cuda.Event(enable_timing=True)
def batch(k):
    torch.cuda.synchronize()
    s.record()
    for _ in range(k):
        f()
    e.record()
    e.synchronize()
    return s.elapsed_time(e)
number, samples = 3, []
for _ in range(10):
    d = 0.0
    while True:
        if d > 0:
            number = int(max(100.0 / (d / number) + 1, number * 1.618))
        d = batch(number)
        if d >= 100.0:
            break
    samples.append(d / number)
samples.sort()
print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0),
                  "cuda": torch.version.cuda, "samples": samples, "median": (samples[4] + samples[5]) / 2,
                  "min": samples[0], "number": number}))
`;

function rand(n: number, seed: number): Float32Array {
  let s = seed >>> 0 || 1;
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    a[i] = ((s >>> 0) / 0xffffffff) * 2 - 1;
  }
  return a;
}

interface KernelResult {
  kernel: string;
  timing: TimingResult;
  gflops: number;
  gbps: number;
  check: string;
  compile: { coldMs: number; warmMs: number; registers?: number; sharedBytes?: number; spills?: number; source?: string };
}

async function compileTimed(name: keyof typeof KERNELS): Promise<{ image: Uint8Array; coldMs: number; warmMs: number; registers?: number; sharedBytes?: number; spills?: number; source?: string }> {
  const runs = [];
  for (let i = 0; i < 3; i++) {
    try {
      runs.push(await compileCuda(KERNELS[name], { cache: false, ptxasVerbose: i === 0, name: `${name}.cu` }));
    } catch (e) {
      if (i !== 0) throw e;
      console.warn(`compile with ptxas -v failed, retrying without: ${e instanceof Error ? e.message : String(e)}`);
      runs.push(await compileCuda(KERNELS[name], { cache: false, name: `${name}.cu` }));
    }
  }
  const first = runs[0] as (typeof runs)[number];
  const fn = first.ptxas?.functions.find((f) => f.name === name);
  const out: { image: Uint8Array; coldMs: number; warmMs: number; registers?: number; sharedBytes?: number; spills?: number; source?: string } = {
    image: first.image,
    coldMs: first.compileMs,
    warmMs: Math.min(...runs.slice(1).map((r) => r.compileMs)),
  };
  if (fn !== undefined) {
    out.registers = fn.registers;
    out.sharedBytes = fn.sharedBytes;
    out.spills = fn.spillLoadBytes + fn.spillStoreBytes;
    out.source = "ptxas -v";
  }
  return out;
}

/** Where ptxas -v gave no report, take registers / static shared memory from the driver. */
function fillFromAttributes(c: { registers?: number; sharedBytes?: number; source?: string }, a: KernelAttributes): void {
  if (c.registers === undefined) {
    c.registers = a.numRegs;
    c.sharedBytes = a.staticSharedBytes;
    c.source = "driver attributes";
  }
}

async function benchVadd(): Promise<KernelResult> {
  const c = await compileTimed("vadd");
  using mod = loadModule(c.image);
  const k = mod.getKernel("vadd");
  fillFromAttributes(c, k.attributes());
  const as = rand(VEC_N, 11);
  const bs = rand(VEC_N, 12);
  using a = NDArray.from(as);
  using b = NDArray.from(bs);
  using out = NDArray.empty([VEC_N], "float32");
  const bound = k.bind({ grid: VEC_N / 256, block: 256 }, [a, b, out, VEC_N]);
  out.fill(Number.NaN);
  bound.run();
  const got = out.toTypedArray();
  let bad = 0;
  for (let i = 0; i < VEC_N; i++) if (got[i] !== Math.fround((as[i] as number) + (bs[i] as number))) bad++;
  if (bad > 0) throw new Error(`vadd: ${bad} of ${VEC_N} outputs wrong`);
  out.fill(Number.NaN);
  const timing = await timeEvaluator(bound, TIMING);
  const s = timing.median / 1e3;
  return {
    kernel: `vector add (2^24 fp32)`,
    timing,
    gflops: VEC_N / s / 1e9,
    gbps: (3 * 4 * VEC_N) / s / 1e9,
    check: `all ${VEC_N} outputs exact`,
    compile: c,
  };
}

async function benchGemm(): Promise<KernelResult> {
  const n = GEMM_N;
  const c = await compileTimed("gemm_relu_add");
  using mod = loadModule(c.image);
  const k = mod.getKernel("gemm_relu_add");
  fillFromAttributes(c, k.attributes());
  const As = rand(n * n, 21);
  const Bs = rand(n * n, 22);
  const Cs = rand(n * n, 23);
  using A = NDArray.from(As, { shape: [n, n] });
  using B = NDArray.from(Bs, { shape: [n, n] });
  using C = NDArray.from(Cs, { shape: [n, n] });
  using D = NDArray.empty([n, n], "float32");
  const bound = k.bind({ grid: [n / 16, n / 16], block: [16, 16] }, [A, B, C, D, n]);
  D.fill(Number.NaN);
  bound.run();
  const got = D.toTypedArray();
  let nan = 0;
  for (let i = 0; i < got.length; i++) if (Number.isNaN(got[i] as number)) nan++;
  if (nan > 0) throw new Error(`gemm: ${nan} outputs not written (NaN)`);
  // float64 reference on a sample of outputs
  let s = 12345;
  let num = 0;
  let den = 0;
  let worst = 0;
  for (let t = 0; t < GEMM_SAMPLES; t++) {
    s = (s * 1103515245 + 12345) >>> 0;
    const idx = s % (n * n);
    const row = Math.floor(idx / n);
    const col = idx % n;
    let acc = 0;
    let mag = 0;
    for (let kk = 0; kk < n; kk++) {
      const p = (As[row * n + kk] as number) * (Bs[kk * n + col] as number);
      acc += p;
      mag += Math.abs(p);
    }
    const ref = Math.max(acc, 0) + (Cs[idx] as number);
    const diff = (got[idx] as number) - ref;
    num += diff * diff;
    den += ref * ref;
    worst = Math.max(worst, Math.abs(diff) / (mag + 1));
  }
  const rel = Math.sqrt(num / den);
  if (!(rel < 1e-4) || !(worst < 1e-5)) throw new Error(`gemm: relative error ${rel.toExponential(2)} (worst ${worst.toExponential(2)})`);
  D.fill(Number.NaN);
  const timing = await timeEvaluator(bound, TIMING);
  const sec = timing.median / 1e3;
  return {
    kernel: `naive gemm+relu+add (2048³ fp32)`,
    timing,
    gflops: (2 * n * n * n) / sec / 1e9,
    gbps: (4 * 4 * n * n) / sec / 1e9,
    check: `${GEMM_SAMPLES} sampled outputs vs float64: ‖Δ‖/‖ref‖ = ${rel.toExponential(2)}; all outputs written`,
    compile: c,
  };
}

async function benchLaunch(): Promise<{ eventUsPerLaunch: number; jsUsPerLaunch: number; number: number; compile: { coldMs: number; warmMs: number } }> {
  const c = await compileTimed("empty");
  using mod = loadModule(c.image);
  const bound = mod.getKernel("empty").bind({ grid: 1, block: 1 }, []);
  const t = await timeEvaluator(bound, TIMING);
  // The same launches issued one by one from JavaScript, wall clock (N-API call included).
  const N = 20_000;
  for (let i = 0; i < 1000; i++) bound.run();
  cuda.synchronize();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) bound.run();
  cuda.synchronize();
  const js = ((performance.now() - t0) / N) * 1e3;
  return { eventUsPerLaunch: t.median * 1e3, jsUsPerLaunch: js, number: t.number, compile: { coldMs: c.coldMs, warmMs: c.warmMs } };
}

async function benchTorch(): Promise<{ ok: true; median: number; min: number; torch: string; cuda: string; device: string } | { ok: false; reason: string }> {
  try {
    const r = await execa("python3", ["-c", TORCH_SCRIPT], {
      env: { TESSERA_N: String(GEMM_N) },
      reject: false,
      timeout: 180_000,
      all: true,
    });
    if (r.exitCode !== 0) return { ok: false, reason: `python3 exited ${r.exitCode}: ${String(r.all).trim().split("\n").slice(-3).join(" | ")}` };
    const line = String(r.stdout).trim().split("\n").pop() ?? "";
    const j = JSON.parse(line) as { median: number; min: number; torch: string; cuda: string; device: string };
    return { ok: true, median: j.median, min: j.min, torch: j.torch, cuda: j.cuda, device: j.device };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message.split("\n")[0] ?? "" : String(e) };
  }
}

/** The kernel driver's version (e.g. "580.159.04") from /proc, where Linux exposes it. */
function kernelDriverVersion(): string | undefined {
  const f = "/proc/driver/nvidia/version";
  if (!existsSync(f)) return undefined;
  return /Kernel Module\s+(?:for \S+\s+)?([\d.]+)/.exec(readFileSync(f, "utf8"))?.[1];
}

function fmt(x: number, d = 3): string {
  return x >= 100 ? x.toFixed(1) : x.toPrecision(d + 1);
}

async function main(): Promise<void> {
  const outAt = process.argv.indexOf("--out-dir");
  const outDir = resolve(outAt >= 0 ? (process.argv[outAt + 1] ?? "docs/benchmarks") : "docs/benchmarks");
  if (!cuda.available()) {
    console.error(`bench:gpu: CUDA unavailable: ${cuda.unavailableReason()}`);
    process.exit(1);
  }
  const dev = cuda.device(0);
  const nv = nvrtcStatus();
  console.log(`${dev.name} (${dev.arch}, ${dev.multiprocessorCount} SMs), driver CUDA ${cuda.driverVersionString()}, ${nv.ok ? nv.version : "nvrtc missing: nvcc"}`);
  const vadd = await benchVadd();
  console.log(`vadd done: ${vadd.timing.median.toFixed(4)} ms`);
  const gemm = await benchGemm();
  console.log(`gemm done: ${gemm.timing.median.toFixed(3)} ms`);
  const launch = await benchLaunch();
  const torch = await benchTorch();
  const ratio = torch.ok ? gemm.timing.median / torch.median : undefined;

  const rows: string[][] = [
    ["kernel", "median ms", "min ms", "GFLOP/s", "GB/s", "vs cuBLAS (torch)"],
    [vadd.kernel, fmt(vadd.timing.median), fmt(vadd.timing.min), fmt(vadd.gflops), fmt(vadd.gbps), "—"],
    [gemm.kernel, fmt(gemm.timing.median), fmt(gemm.timing.min), fmt(gemm.gflops), "—", ratio === undefined ? "n/a" : `${ratio.toFixed(1)}× slower`],
  ];
  if (torch.ok) {
    const tf = (2 * GEMM_N ** 3) / (torch.median / 1e3) / 1e9;
    rows.push([`torch relu(A@B)+C (cuBLAS, TF32 off)`, fmt(torch.median), fmt(torch.min), fmt(tf), "—", "1.0×"]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ");
  console.log("");
  console.log(line(rows[0]!));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const r of rows.slice(1)) console.log(line(r));
  console.log("");
  console.log(`NVRTC compile (cache off): vadd ${vadd.compile.coldMs.toFixed(1)} ms cold / ${vadd.compile.warmMs.toFixed(1)} ms warm; gemm ${gemm.compile.coldMs.toFixed(1)} / ${gemm.compile.warmMs.toFixed(1)} ms; empty ${launch.compile.coldMs.toFixed(1)} / ${launch.compile.warmMs.toFixed(1)} ms`);
  console.log(`launch overhead (empty kernel): ${launch.eventUsPerLaunch.toFixed(2)} µs/launch back-to-back in the native loop (CUDA events); ${launch.jsUsPerLaunch.toFixed(2)} µs/launch issued one by one from JS`);
  if (!torch.ok) console.log(`torch: skipped (${torch.reason})`);

  const date = new Date().toISOString();
  const report = {
    date,
    device: {
      name: dev.name,
      computeCapability: dev.computeCapability.join("."),
      multiprocessors: dev.multiprocessorCount,
      memoryGiB: +(dev.totalMemoryBytes / 2 ** 30).toFixed(1),
      driver: kernelDriverVersion(),
      driverCudaVersion: cuda.driverVersionString(),
      driverVersionRaw: cuda.driverVersion(),
    },
    compiler: nv.ok ? nv.version : "nvcc",
    node: process.version,
    timing: { method: "timeEvaluator (TVM semantics), CUDA events around a native launch loop; ms per run", ...TIMING },
    sizes: { vectorAdd: VEC_N, gemm: [GEMM_N, GEMM_N, GEMM_N] },
    results: [vadd, gemm].map((r) => ({
      kernel: r.kernel,
      medianMs: r.timing.median,
      meanMs: r.timing.mean,
      minMs: r.timing.min,
      maxMs: r.timing.max,
      stdMs: r.timing.std,
      number: r.timing.number,
      samplesMs: r.timing.samples,
      gflops: r.gflops,
      gbps: r.gbps,
      check: r.check,
      nvrtcCompileMs: { cold: r.compile.coldMs, warm: r.compile.warmMs },
      resources: { from: r.compile.source, registers: r.compile.registers, sharedBytes: r.compile.sharedBytes, spillBytes: r.compile.spills },
    })),
    launchOverhead: {
      nativeLoopUsPerLaunch: launch.eventUsPerLaunch,
      jsIssuedUsPerLaunch: launch.jsUsPerLaunch,
      number: launch.number,
      nvrtcCompileMs: launch.compile,
    },
    torch: torch.ok
      ? { version: torch.torch, cuda: torch.cuda, device: torch.device, medianMs: torch.median, minMs: torch.min, gemmSlowdownVsTorch: ratio }
      : { skipped: torch.reason },
  };
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "gpu-runtime.json"), JSON.stringify(report, null, 2) + "\n");
  const md = [
    "# GPU runtime benchmark",
    "",
    `Generated by \`pnpm bench:gpu\` (packages/runtime/bench/gpu.bench.ts) on ${date.slice(0, 10)}.`,
    "",
    `- GPU: **${dev.name}** (compute capability ${dev.computeCapability.join(".")}, ${dev.multiprocessorCount} SMs, ${(dev.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB)`,
    `- Driver: ${kernelDriverVersion() ?? "version unknown"}, CUDA ${cuda.driverVersionString()} (cuDriverGetVersion ${cuda.driverVersion()}); compiler: ${report.compiler}; Node ${process.version}`,
    `- Sizes: vector add 2^24 fp32; gemm+ReLU+add 2048×2048×2048 fp32 (naive: one thread per output, 16×16 blocks)`,
    `- Timing: timeEvaluator, number=${TIMING.number}, repeat=${TIMING.repeat}, minRepeatMs=${TIMING.minRepeatMs}; CUDA events around a native launch loop; ms per run (median of ${TIMING.repeat} samples)`,
    `- Checks: outputs poisoned with NaN before each run; vector add checked in full; gemm on ${GEMM_SAMPLES} sampled outputs against float64`,
    "",
    `| ${rows[0]!.join(" | ")} |`,
    `| ${rows[0]!.map(() => "---").join(" | ")} |`,
    ...rows.slice(1).map((r) => `| ${r.join(" | ")} |`),
    "",
    "| kernel | NVRTC compile, cold (ms) | warm (ms) | registers | shared bytes | spill bytes |",
    "| --- | --- | --- | --- | --- | --- |",
    ...[vadd, gemm].map(
      (r) =>
        `| ${r.kernel} | ${r.compile.coldMs.toFixed(1)} | ${r.compile.warmMs.toFixed(1)} | ${r.compile.registers ?? "?"} | ${r.compile.sharedBytes ?? "?"} | ${r.compile.spills ?? "?"} |`,
    ),
    `| empty | ${launch.compile.coldMs.toFixed(1)} | ${launch.compile.warmMs.toFixed(1)} | | | |`,
    "",
    `Launch overhead (empty kernel, 1×1): **${launch.eventUsPerLaunch.toFixed(2)} µs** per launch back-to-back in the native loop (CUDA events, number=${launch.number}); ${launch.jsUsPerLaunch.toFixed(2)} µs per launch when each is issued from JavaScript (wall clock, N-API call included).`,
    "",
    torch.ok
      ? `cuBLAS reference: torch ${torch.torch} (CUDA ${torch.cuda}) \`relu(A@B)+C\`, TF32 off, CUDA events, same timing scheme: **${torch.median.toFixed(3)} ms**; the naive kernel is **${(ratio ?? 0).toFixed(1)}× slower**.`
      : `cuBLAS reference: skipped (${torch.reason}).`,
    "",
    "Cold compile = the first NVRTC compile of that source in the process with the cache off (the very first also pays NVRTC's own start-up); warm = best of two more.",
    "",
  ].join("\n");
  writeFileSync(join(outDir, "gpu-runtime.md"), md);
  console.log(`wrote ${join(outDir, "gpu-runtime.json")} and gpu-runtime.md`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
