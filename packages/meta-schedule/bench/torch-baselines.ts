/**
 * PyTorch baselines of the tuning benchmark, timed in the same run as the tuner: cuBLAS / cuDNN
 * through torch with TF32 off, CUDA events around batches of back-to-back calls (at least 100 ms
 * per batch, like the tuner's runner), the median of several batches. gemm+ReLU+add reports both
 * `A @ B` (cuBLAS SGEMM alone: the denominator of every gemm ratio) and eager `relu(A@B)+C`.
 * Beside that median, each op is timed as bench:tc times its baseline (the shared protocols of
 * runtime's torch-timing-py.ts): in a burst, and sustained with timeEvaluator's growth rule for about
 * a second — on a power-capped H200 the two differ by 5–25% (docs/benchmarks/tensor-core-2026-11-30-s17).
 */
import { execa } from "execa";
import { TC_TIMING } from "../../runtime/bench/tc-torch-script.js";
import { TORCH_TIMING_PY } from "../../runtime/bench/torch-timing-py.js";
import type { TorchBaselineSpec } from "./workloads.js";

export interface TorchTiming {
  /** Median ms of one call. */
  readonly medianMs: number;
  readonly minMs: number;
  /** Median ms of one call in a burst of ~40 runs after 10 warm-ups (bench:tc's `baselineMs`). */
  readonly burstMs: number;
  /** Median ms of one call with timeEvaluator's protocol, TC_TIMING (bench:tc's `baselineSustainedMs`). */
  readonly sustainedMs: number;
  /** What was timed, e.g. `torch.matmul (cuBLAS, TF32 off)`. */
  readonly what: string;
}

export interface TorchBaseline {
  readonly spec: TorchBaselineSpec;
  /** The computation itself (for gemm_relu_add and gemm_relu_add_fp16: relu(A@B)+C). */
  readonly op: TorchTiming;
  /** For gemm_relu_add: A @ B alone, cuBLAS SGEMM; for gemm_relu_add_fp16, cuBLAS HGEMM. */
  readonly gemmOnly?: TorchTiming;
  /**
   * For matmul_fp16 with a float32 output: the same GEMM with a float32 output (`torch.mm(…, out_dtype=torch.float32)`), as
   * the workload writes; HGEMM (`op`, the ratio's denominator) writes fp16, half the bytes of C.
   */
  readonly fp32Output?: TorchTiming;
  /** Why `fp32Output` is missing for matmul_fp16 with a float32 output (a torch without out_dtype). */
  readonly fp32OutputUnavailable?: string;
}

export interface TorchEnvironment {
  readonly torch: string;
  readonly cuda: string;
  readonly device: string;
}

const SCRIPT = String.raw`
import json, sys, torch
${TORCH_TIMING_PY}
SUSTAINED = [int(x) for x in sys.argv[2].split(",")]  # timeEvaluator's number, repeat, minRepeatMs
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.benchmark = True
dev = "cuda"
g = torch.Generator(device=dev).manual_seed(0)
def rnd(*shape):
    return torch.rand(*shape, device=dev, generator=g) * 2 - 1
def timed(fn, what):
    for _ in range(3): fn()
    torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    s.record(); fn(); e.record(); torch.cuda.synchronize()
    number = max(1, int(100.0 / max(s.elapsed_time(e), 1e-3)) + 1)
    runs = []
    for _ in range(7):
        s.record()
        for _ in range(number): fn()
        e.record(); torch.cuda.synchronize()
        runs.append(s.elapsed_time(e) / number)
    runs.sort()
    return {"medianMs": runs[len(runs) // 2], "minMs": runs[0], "what": what,
            "burstMs": burst_ms(fn, s, e), "sustainedMs": evaluator_ms(fn, s, e, *SUSTAINED)}
out = []
for spec in json.loads(sys.argv[1]):
    op = spec["op"]
    if op == "gemm_relu_add":
        n = spec["n"]; A, B, C = rnd(n, n), rnd(n, n), rnd(n, n)
        out.append({"op": timed(lambda: torch.relu(A @ B) + C, "torch relu(A@B)+C (eager, TF32 off)"),
                    "gemmOnly": timed(lambda: A @ B, "torch A@B (cuBLAS SGEMM, TF32 off)")})
    elif op == "gemm_relu_add_fp16":
        n = spec["n"]; A, B, C = rnd(n, n).half(), rnd(n, n).half(), rnd(n, n).half()
        out.append({"op": timed(lambda: torch.relu(A @ B) + C, "torch relu(A@B)+C fp16 (eager)"),
                    "gemmOnly": timed(lambda: A @ B, "torch A@B fp16 (cuBLAS HGEMM, tensor cores)")})
    elif op == "matmul":
        A, B = rnd(spec["m"], spec["k"]), rnd(spec["k"], spec["n"])
        out.append({"op": timed(lambda: A @ B, "torch A@B (cuBLAS SGEMM, TF32 off)")})
    elif op == "matmul_tf32":
        n = spec["n"]; A, B = rnd(n, n), rnd(n, n)
        torch.backends.cuda.matmul.allow_tf32 = True
        out.append({"op": timed(lambda: A @ B, "torch A@B (cuBLAS, TF32 on)")})
        torch.backends.cuda.matmul.allow_tf32 = False
    elif op == "matmul_fp16":
        n = spec["n"]; A, B = rnd(n, n).half(), rnd(n, n).half()
        r = {"op": timed(lambda: A @ B, "torch A@B fp16 (cuBLAS HGEMM, tensor cores)")}
        # HGEMM writes an fp16 C, as the fp16-output workload does; the other writes float32. torch.mm's
        # out_dtype (torch 2.8+, CUDA) gives cuBLAS's GEMM with fp16 inputs and a float32 output: its bytes.
        if spec.get("output") == "float16":
            out.append(r)
            continue
        try:
            torch.mm(A, B, out_dtype=torch.float32)
        except (TypeError, RuntimeError) as err:
            r["fp32OutputUnavailable"] = "torch.mm(A, B, out_dtype=torch.float32) failed: " + type(err).__name__ + ": " + str(err).splitlines()[0][:200]
        else:
            r["fp32Output"] = timed(lambda: torch.mm(A, B, out_dtype=torch.float32), "torch.mm fp16 with out_dtype=float32 (cuBLAS, fp32 C as the workload's)")
        out.append(r)
    elif op == "batch_matmul":
        b, n = spec["batch"], spec["n"]; A, B = rnd(b, n, n), rnd(b, n, n)
        out.append({"op": timed(lambda: torch.bmm(A, B), "torch.bmm (cuBLAS, TF32 off)")})
    elif op == "conv2d":
        b, c, s, k = spec["batch"], spec["channels"], spec["size"], spec["kernel"]
        X, W = rnd(b, c, s, s), rnd(c, c, k, k)
        out.append({"op": timed(lambda: torch.nn.functional.conv2d(X, W, padding=k // 2), "torch conv2d (cuDNN, TF32 off, benchmark mode)")})
    else:
        raise SystemExit("unknown op " + op)
print(json.dumps({"env": {"torch": torch.__version__, "cuda": torch.version.cuda, "device": torch.cuda.get_device_name(0)}, "results": out}))
`;

/** Times every spec with torch; undefined with the reason when python3/torch/CUDA are missing. */
export async function torchBaselines(
  specs: readonly TorchBaselineSpec[],
): Promise<{ ok: true; env: TorchEnvironment; baselines: TorchBaseline[] } | { ok: false; reason: string }> {
  const run = await execa("python3", ["-c", SCRIPT, JSON.stringify(specs), `${TC_TIMING.number},${TC_TIMING.repeat},${TC_TIMING.minRepeatMs}`], {
    reject: false,
    timeout: 600_000,
    all: true,
  });
  if (run.exitCode !== 0)
    return {
      ok: false,
      reason: `python3 with torch failed (exit ${run.exitCode ?? "?"}): ${String(run.all ?? "")
        .trim()
        .split("\n")
        .slice(-3)
        .join(" | ")}`,
    };
  const line = String(run.stdout).trim().split("\n").at(-1) ?? "";
  const parsed = JSON.parse(line) as { env: TorchEnvironment; results: Array<Omit<TorchBaseline, "spec">> };
  return { ok: true, env: parsed.env, baselines: parsed.results.map((r, k) => ({ ...r, spec: specs[k]! })) };
}

/** For matmul_fp16: the fp32-output GEMM's time and, given the best's `ms`, the best's ratio to it (sustained); or why it is missing. */
export function fp32OutputText(b: TorchBaseline, ms: number | undefined): string | undefined {
  if (b.fp32OutputUnavailable !== undefined) return `same output type (fp32 C): not timed, ${b.fp32OutputUnavailable}`;
  const t = b.fp32Output;
  if (t === undefined) return undefined;
  const ratio = ms === undefined ? "" : `: the best ${(ms / t.sustainedMs).toFixed(3)}× sustained, ${(ms / t.medianMs).toFixed(3)}× its median`;
  return `${t.what} ${t.medianMs.toFixed(4)} ms (sustained ${t.sustainedMs.toFixed(4)}, burst ${t.burstMs.toFixed(4)})${ratio}`;
}

/** The denominator of a workload's ratio: the GEMM alone for gemm+ReLU+add (cuBLAS SGEMM; HGEMM for its fp16 form), else the op. */
export function baselineMs(b: TorchBaseline): number {
  return (b.gemmOnly ?? b.op).medianMs;
}

/** The denominator's burst and sustained figures as `bench:tc` gives them, and `ms`'s ratio to each. */
export function likeForLike(b: TorchBaseline, ms: number): { burstMs: number; sustainedMs: number; toBurst: number; toSustained: number } {
  const t = b.gemmOnly ?? b.op;
  return { burstMs: t.burstMs, sustainedMs: t.sustainedMs, toBurst: ms / t.burstMs, toSustained: ms / t.sustainedMs };
}
