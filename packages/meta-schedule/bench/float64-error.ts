/**
 * bench:tune's accuracy check of a gemm+ReLU+add workload's best program (issue 34: a 3xTF32
 * gemm+ReLU+add must be as accurate as cuBLAS SGEMM). The run's own output check compares each
 * candidate with the first one measured, which cannot see an error every candidate shares (a
 * 3xTF32 program that lost its correction products is still self-consistent). So the best record
 * is built once more and run on seeded inputs, and torch computes, on the same inputs, the float64
 * reference `max(A·B, 0) + C` and SGEMM's float32 result (TF32 off): the report gives both max
 * |errors|.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PrimFunc, randomArgs } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { execa } from "execa";
import { argsInfoOf } from "../src/arg-info.js";

export interface Float64Errors {
  /** max |ours − float64 reference| over D. */
  readonly ours: number;
  /** max |cuBLAS SGEMM's relu(A @ B) + C (float32, TF32 off) − float64 reference|. */
  readonly sgemm: number;
  readonly torch: string;
  readonly device: string;
}

/**
 * The torch side: reads A (m×k), B (k×n), C and ours' D (m×n) as float32 from TESSERA_DIR
 * (TESSERA_MNK = "m,n,k") and prints one JSON line of Float64Errors.
 */
export const FLOAT64_ERROR_SCRIPT = `
import json, os, torch
d = os.environ["TESSERA_DIR"]
m, n, k = (int(x) for x in os.environ["TESSERA_MNK"].split(","))
def load(name, rows, cols):
    raw = open(os.path.join(d, name), "rb").read()
    return torch.frombuffer(bytearray(raw), dtype=torch.float32).reshape(rows, cols).cuda()
A, B, C, D = load("A.bin", m, k), load("B.bin", k, n), load("C.bin", m, n), load("D.bin", m, n)
ref = torch.relu(A.double() @ B.double()) + C.double()
torch.backends.cuda.matmul.allow_tf32 = False
sgemm = torch.relu(A @ B) + C
err = lambda x: (x.double() - ref).abs().max().item()
print(json.dumps({"ours": err(D), "sgemm": err(sgemm), "torch": torch.__version__, "device": torch.cuda.get_device_name(0)}))
`;

/** m, n, k of a gemm+ReLU+add function's parameters A (m×k), B (k×n), C and D (m×n), all float32; throws otherwise. */
export function gemmReluAddShape(func: PrimFunc): { m: number; n: number; k: number } {
  const args = argsInfoOf(func);
  const [a, b, c, d] = args;
  const ok =
    args.length === 4 &&
    args.every((x) => x.dtype === "float32" && x.shape.length === 2) &&
    a!.shape[1] === b!.shape[0] &&
    [c!, d!].every((x) => x.shape[0] === a!.shape[0] && x.shape[1] === b!.shape[1]);
  if (!ok)
    throw new RangeError(
      `float64 error check: expected float32 parameters A (m×k), B (k×n), C and D (m×n), got ${args.map((x) => `${x.dtype}[${x.shape.join("×")}]`).join(", ")}`,
    );
  return { m: a!.shape[0]!, n: b!.shape[1]!, k: a!.shape[1]! };
}

/** Runs FLOAT64_ERROR_SCRIPT on the float32 arrays A, B, C and D (`python` is the interpreter, `env` added to the environment). */
export async function float64ErrorsOf(
  arrays: { readonly A: Float32Array; readonly B: Float32Array; readonly C: Float32Array; readonly D: Float32Array },
  shape: { m: number; n: number; k: number },
  python = "python3",
  env: Record<string, string> = {},
): Promise<Float64Errors | { readonly skipped: string }> {
  const dir = mkdtempSync(join(tmpdir(), "tessera-float64-error-"));
  try {
    for (const [name, x] of Object.entries(arrays)) writeFileSync(join(dir, `${name}.bin`), new Uint8Array(x.buffer, x.byteOffset, x.byteLength));
    const r = await execa(python, ["-c", FLOAT64_ERROR_SCRIPT], {
      env: { ...env, TESSERA_DIR: dir, TESSERA_MNK: `${shape.m},${shape.n},${shape.k}` },
      reject: false,
      all: true,
      timeout: 600_000,
    });
    const tail = (text: string | undefined) => (text ?? "").trim().split("\n").slice(-3).join(" | ");
    if (r.exitCode !== 0) return { skipped: `torch's float64 reference failed: ${tail(r.all)}` };
    try {
      return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Float64Errors;
    } catch {
      return { skipped: `torch's float64 reference printed no result: ${tail(r.all)}` };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds `sch` (a gemm+ReLU+add) for the local GPU, runs it once on inputs seeded by `seed` and compares it with float64 and SGEMM. */
export async function gemmReluAddFloat64Errors(sch: Schedule, seed: number): Promise<Float64Errors | { readonly skipped: string }> {
  const shape = gemmReluAddShape(sch.func);
  const { NDArray, build } = await import("@tessera/runtime");
  const host = randomArgs(sch.func, seed) as Float32Array[];
  host[3]!.fill(Number.NaN);
  const mod = await build(sch, "cuda", { device: "cuda", cacheDir: false });
  const shapes = [
    [shape.m, shape.k],
    [shape.k, shape.n],
    [shape.m, shape.n],
    [shape.m, shape.n],
  ];
  const args = host.map((x, i) => NDArray.from(x, { dtype: "float32", shape: shapes[i]! }));
  try {
    mod(...args);
    const D = args[3]!.toFloat32Array();
    return await float64ErrorsOf({ A: host[0]!, B: host[1]!, C: host[2]!, D }, shape);
  } finally {
    for (const x of args) x.dispose();
    mod.dispose();
  }
}
