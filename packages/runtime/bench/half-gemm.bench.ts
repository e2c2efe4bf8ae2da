/**
 * `pnpm bench:half`: checks the fp16 and bf16 gemm+ReLU+add (16-bit operands, float32
 * accumulation, 16-bit epilogue; @tessera/corpus halfGemmReluAdd, manual SIMT schedule) on a GPU:
 * - against the CPU executor bit for bit at the sizes up to 256 (products of 16-bit values are
 *   exact in float32, so even nvcc's fused multiply-adds give the executor's sums);
 * - against torch at every size: `relu(A.float() @ B.float()).to(dtype) + C` (the same
 *   arithmetic, cuBLAS's summation order) within the dtype's two-ulp tolerance, and the max error
 *   of ours and of torch's `relu(A @ B) + C` (HGEMM / bf16 GEMM) against float64.
 * `--dry-run`: the sim device (the GPU simulator) against the executor, at 128 only, no torch.
 * `--sizes 128,2048` (default), `--seed N`, `--out FILE.json`. Exits 1 when a check fails.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type HalfGemmDType, halfGemmManualSchedule, halfGemmReluAdd } from "@tessera/corpus";
import { compilePrimFunc, encodeHalfArray, randomArgs, toleranceForDType } from "@tessera/ir";
import { execa } from "execa";
import { type GemmBenchOptions, parseGemmBenchOptions } from "./gemm-bench-options.js";
import { NDArray, build, cuda } from "../src/index.js";

/** The CPU executor's output, exact; only at sizes where the executor is quick enough. */
const EXECUTOR_MAX_SIZE = 256;

interface CheckResult {
  readonly dtype: HalfGemmDType;
  readonly n: number;
  readonly device: "cuda" | "sim";
  /** Elements whose bits differ from the executor's (undefined: not compared at this size). */
  readonly executorBitsDiffering?: number;
  readonly torch: TorchComparison | { readonly skipped: string };
  readonly passed: boolean;
}

interface TorchComparison {
  readonly mismatches: number;
  readonly rtol: number;
  readonly atol: number;
  readonly maxAbsDiffToTorchSameArithmetic: number;
  readonly oursMaxAbsErrorToFloat64: number;
  readonly torchGemmMaxAbsErrorToFloat64: number;
  readonly torch: string;
  readonly device: string;
}

async function runOurs(dtype: HalfGemmDType, n: number, inputs: readonly Float32Array[], dryRun: boolean): Promise<Float32Array> {
  const sch = halfGemmManualSchedule(n, dtype);
  if (dryRun) {
    const mod = await build(sch, "nvidia/tesla-t4", { device: "sim" });
    const args = inputs.map((a) => a.slice());
    mod(...args);
    return args[3]!;
  }
  const mod = await build(sch, "cuda", { device: "cuda", cacheDir: false });
  const device = inputs.map((a) => NDArray.fromFloats(a, { dtype, shape: [n, n] }));
  try {
    mod(...device);
    return device[3]!.toFloat32Array();
  } finally {
    for (const d of device) d.dispose();
    mod.dispose();
  }
}

const TORCH_SCRIPT = `
import json, os, torch
n, dt = int(os.environ["TESSERA_N"]), {"float16": torch.float16, "bfloat16": torch.bfloat16}[os.environ["TESSERA_DTYPE"]]
rtol, atol, d = float(os.environ["TESSERA_RTOL"]), float(os.environ["TESSERA_ATOL"]), os.environ["TESSERA_DIR"]
def load(name):
    raw = open(os.path.join(d, name), "rb").read()
    return torch.frombuffer(bytearray(raw), dtype=torch.int16).view(dt).reshape(n, n).cuda()
A, B, C, ours = load("A.bin"), load("B.bin"), load("C.bin"), load("D.bin")
same = (torch.relu(A.float() @ B.float()).to(dt) + C).double()
gemm = (torch.relu(A @ B) + C).double()
ref = torch.relu(A.double() @ B.double()) + C.double()
o = ours.double()
print(json.dumps({"mismatches": int((~((o - same).abs() <= atol + rtol * same.abs())).sum().item()),
  "maxAbsDiffToTorchSameArithmetic": (o - same).abs().max().item(), "oursMaxAbsErrorToFloat64": (o - ref).abs().max().item(),
  "torchGemmMaxAbsErrorToFloat64": (gemm - ref).abs().max().item(), "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}))
`;

async function compareWithTorch(
  dtype: HalfGemmDType,
  n: number,
  inputs: readonly Float32Array[],
  ours: Float32Array,
): Promise<TorchComparison | { skipped: string }> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-half-gemm-"));
  try {
    ["A", "B", "C"].forEach((name, i) => writeFileSync(join(dir, `${name}.bin`), encodeHalfArray(dtype, inputs[i]!)));
    writeFileSync(join(dir, "D.bin"), encodeHalfArray(dtype, ours));
    const { rtol, atol } = toleranceForDType(dtype, { rtol: 1e-4, atol: 1e-4 });
    const env = { TESSERA_N: String(n), TESSERA_DTYPE: dtype, TESSERA_RTOL: String(rtol), TESSERA_ATOL: String(atol), TESSERA_DIR: dir };
    const r = await execa("python3", ["-c", TORCH_SCRIPT], { env, reject: false, all: true, timeout: 300_000 });
    if (r.exitCode !== 0) return { skipped: `python3 with torch failed (exit ${r.exitCode}): ${String(r.all).trim().split("\n").slice(-2).join(" | ")}` };
    return { rtol, atol, ...(JSON.parse(String(r.stdout).trim().split("\n").pop() ?? "{}") as Omit<TorchComparison, "rtol" | "atol">) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function differingBits(dtype: HalfGemmDType, a: Float32Array, b: Float32Array): number {
  const [x, y] = [encodeHalfArray(dtype, a), encodeHalfArray(dtype, b)];
  let count = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) count++;
  return count;
}

async function check(dtype: HalfGemmDType, n: number, opts: GemmBenchOptions): Promise<CheckResult> {
  const original = halfGemmReluAdd(n, dtype).func;
  const inputs = randomArgs(original, opts.seed) as Float32Array[];
  inputs[3]!.fill(Number.NaN);
  const ours = await runOurs(dtype, n, inputs, opts.dryRun);
  let executorBitsDiffering: number | undefined;
  if (n <= EXECUTOR_MAX_SIZE) {
    const expected = inputs.map((a) => a.slice());
    compilePrimFunc(original).run(expected);
    executorBitsDiffering = differingBits(dtype, ours, expected[3]!);
  }
  const torch = opts.dryRun ? { skipped: "dry run (no GPU)" } : await compareWithTorch(dtype, n, inputs, ours);
  // On a GPU torch is required; ours may be no further from float64 than twice torch's own GEMM.
  const torchOk = "skipped" in torch ? opts.dryRun : torch.mismatches === 0 && torch.oursMaxAbsErrorToFloat64 <= 2 * torch.torchGemmMaxAbsErrorToFloat64 + 1e-6;
  const passed = (executorBitsDiffering ?? 0) === 0 && torchOk;
  return { dtype, n, device: opts.dryRun ? "sim" : "cuda", ...(executorBitsDiffering === undefined ? {} : { executorBitsDiffering }), torch, passed };
}

async function main(): Promise<void> {
  const opts = parseGemmBenchOptions(process.argv.slice(2), { sizes: "128,2048", dryRunSizes: "128", multipleOf: 64 });
  if (!opts.dryRun && !cuda.available()) throw new Error(`no CUDA device (${cuda.unavailableReason() ?? "unknown"}); run with --dry-run for the simulator`);
  const results: CheckResult[] = [];
  for (const dtype of ["float16", "bfloat16"] as const) {
    for (const n of opts.sizes) {
      let r: CheckResult;
      try {
        r = await check(dtype, n, opts);
      } catch (err) {
        const message = err instanceof Error ? `${err.message}${"log" in err ? `\n${String(err.log)}` : ""}` : String(err);
        const hint = /cuda_(fp16|bf16)\.h/.test(message)
          ? " (NVRTC did not find the 16-bit float headers: set TESSERA_CUDA_INCLUDE to a CUDA toolkit's include folder)"
          : "";
        console.log(`FAIL ${dtype} ${n}³: ${message.split("\n").slice(0, 6).join(" | ")}${hint}`);
        process.exitCode = 1;
        continue;
      }
      results.push(r);
      const executor = r.executorBitsDiffering === undefined ? "executor: not compared" : `executor: ${r.executorBitsDiffering} elements with other bits`;
      const torch =
        "skipped" in r.torch
          ? `torch: ${r.torch.skipped}`
          : `torch: ${r.torch.mismatches} outside rtol=atol=${r.torch.rtol}, max |Δ| to float64 ours ${r.torch.oursMaxAbsErrorToFloat64.toExponential(2)} vs torch GEMM ${r.torch.torchGemmMaxAbsErrorToFloat64.toExponential(2)} (${r.torch.device})`;
      console.log(`${r.passed ? "PASS" : "FAIL"} ${dtype} ${n}³ on ${r.device}: ${executor}; ${torch}`);
    }
  }
  if (opts.out !== undefined) writeFileSync(opts.out, `${JSON.stringify({ seed: opts.seed, results }, null, 2)}\n`);
  if (results.some((r) => !r.passed)) process.exitCode = 1;
}

await main();
