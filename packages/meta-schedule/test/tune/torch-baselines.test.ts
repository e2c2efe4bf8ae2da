/**
 * bench:tune's torch baselines (bench/torch-baselines.ts) against a stand-in `torch` package whose
 * matmuls advance a fake CUDA clock: a fixed time each until call `throttleAt`, a quarter more after
 * (a GPU reaching its power cap), so every timing is exact. Beside its own median, each op must be
 * timed as bench:tc times its baseline — in a burst, and sustained with timeEvaluator's protocol run
 * for run — so that the search's best compares like for like with the vendor library
 * (docs/benchmarks/tensor-core-2026-11-30-s18).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { TC_TIMING } from "../../../runtime/bench/tc-torch-script.js";
import { standInTorchEnv, standInTorchModule } from "../../../runtime/test/support/stand-in-torch.js";
import { timeEvaluator } from "../../../runtime/src/timer.js";
import { baselineMs, fp32OutputText, likeForLike, torchBaselines } from "../../bench/torch-baselines.js";
import type { TorchBaselineSpec } from "../../bench/workloads.js";

const python = spawnSync("python3", ["--version"]).status === 0;

/** A `torch` with what the baselines' script calls for a matmul_fp16 spec (the clock and stubs: standInTorchModule). */
const STAND_IN = standInTorchModule(`
class Tensor:
    def __mul__(self, k): return self
    def __sub__(self, k): return self
    def half(self): return self
    def __add__(self, other): return self
    def __matmul__(self, other):
        advance_clock(0.5 if backends.cuda.matmul.allow_tf32 else 1.0)  # TF32 on: its own time, so the test sees the flag
        return self
class Generator:
    def __init__(self, device): pass
    def manual_seed(self, s): return self
def rand(*shape, device=None, generator=None): return Tensor()
def relu(x):
    advance_clock(0.5)  # the epilogue's own time, so the test sees which op was timed
    return x
def mm(a, b, out_dtype=None):
    if out_dtype is not None and os.environ.get("STAND_IN_OUT_DTYPE") != "1":
        raise TypeError("mm() got an unexpected keyword argument 'out_dtype'")
    advance_clock(2.0 if out_dtype is not None else 1.0)  # a float32 C: its own time, so the test sees which op was timed
    return a
`);

describe.skipIf(!python)("bench:tune's torch baselines", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-torch-baselines-"));
  mkdirSync(join(dir, "torch"));
  writeFileSync(join(dir, "torch", "__init__.py"), STAND_IN);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A binary fraction, so that the fake clock's sums are exact in both languages.
  const ms = 0.375;
  // The script's own median first: 3 warm-ups, one call to size the batches, 7 batches of `number`.
  const number = Math.trunc(100 / ms) + 1;
  const ownMedianCalls = 3 + 1 + 7 * number;
  // Then the burst: 10 warm-ups and 10 bursts of 3; the GPU throttles right after it.
  const throttleAt = ownMedianCalls + 10 + 30;

  /** bench:tune's baselines of `spec` against the stand-in torch, with `env` set (vi.stubEnv) only while they run. */
  async function baselineOf(spec: TorchBaselineSpec, env: Record<string, string>) {
    for (const [k, v] of Object.entries({ PYTHONPATH: dir, ...env })) vi.stubEnv(k, v);
    try {
      const result = await torchBaselines([spec]);
      if (!result.ok) throw new Error(result.reason);
      return result;
    } finally {
      vi.unstubAllEnvs();
    }
  }

  /** bench:tune's baselines of a 64³ matmul_fp16 against the stand-in torch. */
  const matmulFp16Baseline = (env: Record<string, string>, output?: "float16") =>
    baselineOf({ op: "matmul_fp16", n: 64, ...(output === undefined ? {} : { output }) }, env);

  it("times each op in a burst and sustained as bench:tc does, beside its own median", async () => {
    const result = await matmulFp16Baseline(standInTorchEnv(ms, throttleAt, join(dir, "calls.txt")));
    const op = result.baselines[0]!.op;

    // timeEvaluator's runs are the matmuls after the burst (its warm-up stands for the burst's last).
    const evaluatorFrom = throttleAt - 1;
    let next = evaluatorFrom;
    const want = await timeEvaluator(
      {
        warmup: () => void next++,
        timeBatch: (k) => {
          let elapsed = 0;
          for (const end = next + k; next < end; next++) elapsed += next >= throttleAt ? ms * 1.25 : ms;
          return elapsed;
        },
      },
      TC_TIMING,
    );
    expect(op.medianMs).toBe(ms);
    expect(op.burstMs).toBe(ms);
    expect(op.sustainedMs).toBe(want.median);
    expect(op.sustainedMs).toBeGreaterThan(ms);
    // Run for run: the samples grew as timeEvaluator's do, for ~repeat × minRepeatMs of back-to-back runs.
    const sustainedCalls = Number(readFileSync(join(dir, "calls.txt"), "utf8")) - throttleAt;
    expect(sustainedCalls).toBe(next - evaluatorFrom - 1);
    expect(sustainedCalls * ms * 1.25).toBeGreaterThanOrEqual(TC_TIMING.repeat * TC_TIMING.minRepeatMs);

    const best = 0.5;
    expect(likeForLike(result.baselines[0]!, best)).toEqual({ burstMs: ms, sustainedMs: want.median, toBurst: best / ms, toSustained: best / want.median });
    // This torch has no out_dtype: the fp32-output GEMM is reported missing, with the reason, and costs no call.
    expect(result.baselines[0]!.fp32Output).toBeUndefined();
    expect(result.baselines[0]!.fp32OutputUnavailable).toMatch(/out_dtype=torch\.float32\) failed: TypeError: .*unexpected keyword argument 'out_dtype'/);
    expect(fp32OutputText(result.baselines[0]!, best)).toMatch(/^same output type \(fp32 C\): not timed, /);
  });

  it("times matmul_fp16 also with a float32 output (the workload's own), where torch.mm takes out_dtype", async () => {
    const result = await matmulFp16Baseline({ STAND_IN_OUT_DTYPE: "1", ...standInTorchEnv(ms, 1e9, join(dir, "calls.txt")) });
    const b = result.baselines[0]!;
    expect(b.fp32OutputUnavailable).toBeUndefined();
    expect(b.fp32Output).toMatchObject({ medianMs: 2 * ms, burstMs: 2 * ms, sustainedMs: 2 * ms });
    expect(b.op).toMatchObject({ medianMs: ms, burstMs: ms, sustainedMs: ms });
    expect(b.fp32Output!.what).toMatch(/out_dtype=float32/);
    expect(fp32OutputText(b, 0.5)).toContain(`: the best ${(0.5 / (2 * ms)).toFixed(3)}× sustained`);
    // HGEMM stays the ratio's denominator (the target is against it).
    expect(likeForLike(b, 0.5).sustainedMs).toBe(b.op.sustainedMs);
  });

  it("times only HGEMM for the fp16-output workload: its own output type, no float32-output GEMM", async () => {
    const result = await matmulFp16Baseline({ STAND_IN_OUT_DTYPE: "1", ...standInTorchEnv(ms, 1e9, join(dir, "calls.txt")) }, "float16");
    const b = result.baselines[0]!;
    expect(b.op).toMatchObject({ medianMs: ms, burstMs: ms, sustainedMs: ms });
    expect(b.fp32Output).toBeUndefined();
    expect(b.fp32OutputUnavailable).toBeUndefined();
    expect(fp32OutputText(b, 0.5)).toBeUndefined();
  });

  it("times matmul_tf32 with TF32 on (cuBLAS's tf32 GEMM), and turns it off again for the specs after it", async () => {
    for (const [k, v] of Object.entries({ PYTHONPATH: dir, ...standInTorchEnv(ms, 1e9, join(dir, "calls.txt")) })) vi.stubEnv(k, v);
    try {
      const result = await torchBaselines([
        { op: "matmul_tf32", n: 64 },
        { op: "matmul", m: 64, n: 64, k: 64 },
      ]);
      if (!result.ok) throw new Error(result.reason);
      const [tf32, sgemm] = result.baselines;
      expect(tf32!.op).toMatchObject({ medianMs: 0.5 * ms, burstMs: 0.5 * ms, sustainedMs: 0.5 * ms });
      expect(tf32!.op.what).toMatch(/TF32 on/);
      expect(sgemm!.op).toMatchObject({ medianMs: ms, burstMs: ms, sustainedMs: ms });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("times gemm+ReLU+add in fp16 as torch's fp16 relu(A@B)+C, and HGEMM's A@B alone as the ratio's denominator", async () => {
    const result = await baselineOf({ op: "gemm_relu_add_fp16", n: 64 }, standInTorchEnv(ms, 1e9, join(dir, "calls.txt")));
    const b = result.baselines[0]!;
    expect(b.op).toMatchObject({ medianMs: 1.5 * ms, burstMs: 1.5 * ms, sustainedMs: 1.5 * ms });
    expect(b.op.what).toMatch(/relu\(A@B\)\+C fp16/);
    expect(b.gemmOnly).toMatchObject({ medianMs: ms, burstMs: ms, sustainedMs: ms });
    expect(b.gemmOnly!.what).toMatch(/HGEMM/);
    expect(baselineMs(b)).toBe(ms);
    expect(likeForLike(b, 0.5).sustainedMs).toBe(ms);
    expect(b.fp32Output).toBeUndefined();
  });
});
