/**
 * `pnpm bench:tc`: the tensor-core GEMMs `C = A·B` (fp16 A and B, fp32 accumulation and C) of
 * @tessera/corpus on the GPU, checked and timed against torch in the same run:
 * - `wmma`: wmmaGemmSchedule with WMMA_PARAMS (64×128 block tiles of 2×4 warps, 2×2 fragments per
 *   warp, k tiles of 32);
 * - `mma`: mmaGemmSchedule with MMA_PARAMS (ldmatrix + mma.sync m16n8k16; 128×128 block tiles of
 *   2×4 warps, 4×2 16×16 tiles per warp, k tiles of 32);
 * for each:
 * - ours: `build(…, "cuda")`, timeEvaluator (number 3, repeat 10, minRepeatMs 100), median ms;
 * - torch: `A @ B` in fp16 (cuBLAS HGEMM, fp32 accumulation, fp16 output), CUDA events around 3
 *   runs, 10 repeats, median ms per run; the ratio is ours / HGEMM;
 * - numerics: the max |error| against float64 of ours, of torch's fp32 GEMM of the same operands
 *   (TF32 off) and of its HGEMM; ours must be within 4× the fp32 GEMM's error (+1e-4).
 * `--dry-run`: the sim device (the GPU simulator) at 128³ against the CPU executor, bit for bit;
 * no torch, no timing. `--sizes 2048,4096` (default), `--kernels wmma,mma` (default both), `--seed N`,
 * `--out FILE.json`. Exits 1 when a check fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MMA_PARAMS, WMMA_PARAMS, mmaGemmSchedule, wmmaGemm, wmmaGemmSchedule } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import { compilePrimFunc, encodeHalfArray, randomArgs } from "@tessera/ir";
import { execa } from "execa";
import { parseGemmBenchOptions } from "./gemm-bench-options.js";
import { NDArray, build, cuda } from "../src/index.js";

const TIMING = { number: 3, repeat: 10, minRepeatMs: 100 } as const;

/** The tensor-core kernels measured, by name (all compute `wmmaGemm(n)`). */
const KERNELS: Readonly<Record<string, (n: number) => Schedule>> = {
  wmma: (n) => wmmaGemmSchedule(n, WMMA_PARAMS),
  mma: (n) => mmaGemmSchedule(n, MMA_PARAMS),
};

function parseKernels(argv: readonly string[]): string[] {
  const i = argv.indexOf("--kernels");
  const names = (i >= 0 ? (argv[i + 1] ?? "") : Object.keys(KERNELS).join(",")).split(",");
  for (const name of names)
    if (KERNELS[name] === undefined) throw new Error(`--kernels: known kernels are ${Object.keys(KERNELS).join(", ")}, got ${JSON.stringify(name)}`);
  return names;
}

interface TorchResult {
  readonly hgemmMs: number;
  readonly oursMaxAbsErrorToFloat64: number;
  readonly torchFp32MaxAbsErrorToFloat64: number;
  readonly torchHgemmMaxAbsErrorToFloat64: number;
  readonly torch: string;
  readonly device: string;
}

interface Result {
  readonly kernel: string;
  readonly n: number;
  readonly device: "cuda" | "sim";
  readonly oursMs?: number;
  readonly tflops?: number;
  readonly ratioToHgemm?: number;
  /** Dry run: elements whose bits differ from the executor's. */
  readonly executorBitsDiffering?: number;
  readonly torch?: TorchResult | { readonly skipped: string };
  readonly passed: boolean;
}

const TORCH_SCRIPT = `
import json, os, torch
n, d = int(os.environ["TESSERA_N"]), os.environ["TESSERA_DIR"]
torch.backends.cuda.matmul.allow_tf32 = False
def load(name, dt, idt):
    raw = open(os.path.join(d, name), "rb").read()
    return torch.frombuffer(bytearray(raw), dtype=idt).view(dt).reshape(n, n).cuda()
A, B = load("A.bin", torch.float16, torch.int16), load("B.bin", torch.float16, torch.int16)
ours = load("C.bin", torch.float32, torch.int32).double()
ref = A.double() @ B.double()
err = lambda x: (x.double() - ref).abs().max().item()
fp32, hgemm = A.float() @ B.float(), A @ B
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for _ in range(10): A @ B
times = []
for _ in range(10):
    start.record()
    for _ in range(3): A @ B
    end.record(); torch.cuda.synchronize(); times.append(start.elapsed_time(end) / 3)
times.sort()
print(json.dumps({"hgemmMs": times[len(times) // 2], "oursMaxAbsErrorToFloat64": err(ours), "torchFp32MaxAbsErrorToFloat64": err(fp32),
  "torchHgemmMaxAbsErrorToFloat64": err(hgemm), "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}))
`;

async function torchComparison(n: number, a: Float32Array, b: Float32Array, ours: Float32Array): Promise<TorchResult | { skipped: string }> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-tc-gemm-"));
  try {
    writeFileSync(join(dir, "A.bin"), encodeHalfArray("float16", a));
    writeFileSync(join(dir, "B.bin"), encodeHalfArray("float16", b));
    writeFileSync(join(dir, "C.bin"), new Uint8Array(ours.buffer, ours.byteOffset, ours.byteLength));
    const r = await execa("python3", ["-c", TORCH_SCRIPT], { env: { TESSERA_N: String(n), TESSERA_DIR: dir }, reject: false, all: true, timeout: 600_000 });
    if (r.exitCode !== 0) return { skipped: `python3 with torch failed (exit ${r.exitCode}): ${String(r.all).trim().split("\n").slice(-2).join(" | ")}` };
    return JSON.parse(String(r.stdout).trim().split("\n").pop() ?? "{}") as TorchResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function dryRun(kernel: string, n: number, seed: number): Promise<Result> {
  const original = wmmaGemm(n);
  const inputs = randomArgs(original, seed) as Float32Array[];
  inputs[2]!.fill(Number.NaN);
  const mod = await build(KERNELS[kernel]!(n), "nvidia/h100", { device: "sim" });
  const simulated = inputs.map((x) => x.slice());
  mod(...simulated);
  compilePrimFunc(original).run(inputs);
  const [want, got] = [new Uint32Array(inputs[2]!.buffer), new Uint32Array(simulated[2]!.buffer)];
  let differing = 0;
  for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) differing++;
  return { kernel, n, device: "sim", executorBitsDiffering: differing, torch: { skipped: "dry run (no GPU)" }, passed: differing === 0 };
}

async function onGpu(kernel: string, n: number, seed: number): Promise<Result> {
  const inputs = randomArgs(wmmaGemm(n), seed) as Float32Array[];
  const mod = await build(KERNELS[kernel]!(n), "cuda", { device: "cuda", cacheDir: false });
  const [a, b] = [NDArray.fromFloats(inputs[0]!, { dtype: "float16", shape: [n, n] }), NDArray.fromFloats(inputs[1]!, { dtype: "float16", shape: [n, n] })];
  const c = NDArray.from(new Float32Array(n * n).fill(Number.NaN), { shape: [n, n], dtype: "float32" });
  try {
    mod(a, b, c);
    const ours = c.toFloat32Array();
    const timing = await mod.timeEvaluator(TIMING)(a, b, c);
    const torch = await torchComparison(n, inputs[0]!, inputs[1]!, ours);
    const ok = !("skipped" in torch) && torch.oursMaxAbsErrorToFloat64 <= 4 * torch.torchFp32MaxAbsErrorToFloat64 + 1e-4;
    return {
      kernel,
      n,
      device: "cuda",
      oursMs: timing.median,
      tflops: (2 * n ** 3) / (timing.median / 1e3) / 1e12,
      ...("skipped" in torch ? {} : { ratioToHgemm: timing.median / torch.hgemmMs }),
      torch,
      passed: ok,
    };
  } finally {
    for (const x of [a, b, c]) x.dispose();
    mod.dispose();
  }
}

function describe(r: Result): string {
  if (r.device === "sim")
    return `${r.passed ? "PASS" : "FAIL"} ${r.kernel} gemm ${r.n}³ on sim: ${r.executorBitsDiffering} elements with other bits than the executor`;
  const t = r.torch;
  const torch =
    t === undefined || "skipped" in t
      ? `torch: ${t?.skipped ?? "not run"}`
      : `cuBLAS HGEMM ${t.hgemmMs.toPrecision(4)} ms, ratio ${r.ratioToHgemm?.toFixed(2)}; max |Δ| to float64 ours ${t.oursMaxAbsErrorToFloat64.toExponential(2)}, torch fp32 ${t.torchFp32MaxAbsErrorToFloat64.toExponential(2)}, HGEMM ${t.torchHgemmMaxAbsErrorToFloat64.toExponential(2)} (${t.device})`;
  return `${r.passed ? "PASS" : "FAIL"} ${r.kernel} gemm ${r.n}³ on cuda: ${r.oursMs?.toPrecision(4)} ms (${r.tflops?.toFixed(1)} TFLOP/s); ${torch}`;
}

async function main(): Promise<void> {
  const opts = parseGemmBenchOptions(process.argv.slice(2), { sizes: "2048,4096", dryRunSizes: "128", multipleOf: 128 });
  if (!opts.dryRun && !cuda.available()) throw new Error(`no CUDA device (${cuda.unavailableReason() ?? "unknown"}); run with --dry-run for the simulator`);
  const kernels = parseKernels(process.argv.slice(2));
  const results: Result[] = [];
  for (const n of opts.sizes) {
    for (const kernel of kernels) {
      try {
        const r = opts.dryRun ? await dryRun(kernel, n, opts.seed) : await onGpu(kernel, n, opts.seed);
        results.push(r);
        console.log(describe(r));
      } catch (err) {
        const message = err instanceof Error ? `${err.message}${"log" in err ? `\n${String(err.log)}` : ""}` : String(err);
        console.log(`FAIL ${kernel} gemm ${n}³: ${message.split("\n").slice(0, 6).join(" | ")}`);
        process.exitCode = 1;
      }
    }
  }
  if (opts.out !== undefined) writeFileSync(opts.out, `${JSON.stringify({ seed: opts.seed, timing: TIMING, results }, null, 2)}\n`);
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}

await main();
