/**
 * bench:tc's torch side (tensor-core-gemm.bench.ts runs it with `python3 -c`): loads the operands
 * and our output from TESSERA_DIR, computes the float64 reference, torch's SGEMM and the baseline
 * (HGEMM, TF32 or SGEMM), and times the baseline twice (torch-timing-py.ts): `baselineMs` in a
 * burst, `baselineSustainedMs` with ours' protocol (`TC_TIMING` through TESSERA_TIMING) — on a
 * power-capped H200 only the latter compares like for like with ours.
 * Prints one JSON line (TorchResult in the bench).
 */

import { TORCH_TIMING_PY } from "./torch-timing-py.js";

/** How ours is timed (timeEvaluator's options), and the baseline's sustained timing too. */
export const TC_TIMING = { number: 3, repeat: 10, minRepeatMs: 100 } as const;

/** The environment variable that passes a timing to the script. */
export function tcTorchTimingEnv(t: { readonly number: number; readonly repeat: number; readonly minRepeatMs: number }): { TESSERA_TIMING: string } {
  return { TESSERA_TIMING: `${t.number},${t.repeat},${t.minRepeatMs}` };
}

export const TC_TORCH_SCRIPT = `
import json, os, torch
${TORCH_TIMING_PY}
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
number, repeat, min_ms = (int(x) for x in os.environ["TESSERA_TIMING"].split(","))
burst = burst_ms(lambda: X @ Y, start, end)
sustained = evaluator_ms(lambda: X @ Y, start, end, number, repeat, min_ms)
print(json.dumps({"baseline": baseline, "baselineMs": burst, "baselineSustainedMs": sustained, "oursMaxAbsErrorToFloat64": err(ours), "torchFp32MaxAbsErrorToFloat64": err(fp32),
  "torchBaselineMaxAbsErrorToFloat64": err(base), "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}))
`;
