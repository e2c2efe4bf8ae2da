/**
 * bench:tc's torch side (tensor-core-gemm.bench.ts runs it with `python3 -c`): loads the operands
 * and our output from TESSERA_DIR, computes the float64 reference, torch's SGEMM and the baseline
 * (HGEMM, TF32 or SGEMM), and times the baseline twice:
 * - `baselineMs`: CUDA events around 3 runs, 10 repeats after 10 warm-ups, the median per run — a
 *   burst of ~40 runs, at the clocks a GPU has after idling;
 * - `baselineSustainedMs`: with ours' protocol (`TC_TIMING` through TESSERA_TIMING, the growth rule
 *   of timeEvaluator, TVM's time_evaluator): samples of `number` back-to-back runs, `number` growing
 *   to max(minRepeatMs / per-run + 1, 1.618 · number) until a sample lasts minRepeatMs; the median of
 *   `repeat` samples. On an H200 a GEMM run back to back for a second sits at the 700 W cap at lower
 *   clocks than a burst (docs/benchmarks/tensor-core-2026-11-30-s17), so only this one compares
 *   like for like with ours.
 * Prints one JSON line (TorchResult in the bench).
 */

/** How ours is timed (timeEvaluator's options), and the baseline's sustained timing too. */
export const TC_TIMING = { number: 3, repeat: 10, minRepeatMs: 100 } as const;

/** The environment variable that passes a timing to the script. */
export function tcTorchTimingEnv(t: { readonly number: number; readonly repeat: number; readonly minRepeatMs: number }): { TESSERA_TIMING: string } {
  return { TESSERA_TIMING: `${t.number},${t.repeat},${t.minRepeatMs}` };
}

export const TC_TORCH_SCRIPT = `
import json, os, torch
n, d = int(os.environ["TESSERA_N"]), os.environ["TESSERA_DIR"]
operands, baseline, relu_add = os.environ["TESSERA_OPERANDS"], os.environ["TESSERA_BASELINE"], os.environ["TESSERA_RELU_ADD"] == "1"
def load(name, dt, idt):
    raw = open(os.path.join(d, name), "rb").read()
    return torch.frombuffer(bytearray(raw), dtype=idt).view(dt).reshape(n, n).cuda()
if operands == "float16":
    A, B = load("A.bin", torch.float16, torch.int16), load("B.bin", torch.float16, torch.int16)
else:
    A, B = load("A.bin", torch.float32, torch.int32), load("B.bin", torch.float32, torch.int32)
ours = load("OUT.bin", torch.float32, torch.int32).double()
Cin = (load("CIN.bin", torch.float16, torch.int16) if operands == "float16" else load("CIN.bin", torch.float32, torch.int32)) if relu_add else None
epilogue = (lambda x: torch.relu(x) + Cin.to(x.dtype)) if relu_add else (lambda x: x)
ref = epilogue(A.double() @ B.double())
err = lambda x: (x.double() - ref).abs().max().item()
torch.backends.cuda.matmul.allow_tf32 = False
fp32 = epilogue(A.float() @ B.float())
torch.backends.cuda.matmul.allow_tf32 = baseline == "tf32"
X, Y = (A, B) if baseline == "hgemm" else (A.float(), B.float())
base = epilogue(X @ Y)
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
for _ in range(10): X @ Y
times = []
for _ in range(10):
    start.record()
    for _ in range(3): X @ Y
    end.record(); torch.cuda.synchronize(); times.append(start.elapsed_time(end) / 3)
times.sort()
# The protocol ours is timed with (timeEvaluator, TVM's time_evaluator): samples of \`number\` runs, \`number\`
# growing until a sample lasts minRepeatMs, so the GPU runs the GEMM back to back for about
# repeat × minRepeatMs (at the clocks it sustains under that load), median ms per run.
number, repeat, min_ms = (int(x) for x in os.environ["TESSERA_TIMING"].split(","))
sustained = []
for _ in range(repeat):
    duration = 0.0
    while True:
        if duration > 0: number = int(max(min_ms / (duration / number) + 1, number * 1.618))
        start.record()
        for _ in range(number): X @ Y
        end.record(); torch.cuda.synchronize(); duration = start.elapsed_time(end)
        if duration >= min_ms: break
    sustained.append(duration / number)
sustained.sort()
print(json.dumps({"baseline": baseline, "baselineMs": times[len(times) // 2], "baselineSustainedMs": (sustained[(repeat - 1) // 2] + sustained[repeat // 2]) / 2, "oursMaxAbsErrorToFloat64": err(ours), "torchFp32MaxAbsErrorToFloat64": err(fp32),
  "torchBaselineMaxAbsErrorToFloat64": err(base), "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}))
`;
