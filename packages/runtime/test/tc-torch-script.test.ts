/**
 * bench:tc's torch script (bench/tc-torch-script.ts) against a stand-in `torch` package: every
 * matmul advances a fake CUDA clock, by a fixed time for the first THROTTLE_AFTER matmuls and by a
 * quarter more after them (a GPU reaching its power cap), so the script's timings are exact. The
 * sustained baseline must follow timeEvaluator's protocol run for run (regression: the baseline was
 * timed only in a burst of ~40 runs while ours ran ~1 s back to back, which on a power-capped H200
 * made cuBLAS look 5–10% faster than ours like for like; docs/benchmarks/tensor-core-2026-11-30-s17).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TC_TIMING, TC_TORCH_SCRIPT, tcTorchTimingEnv } from "../bench/tc-torch-script.js";
import { timeEvaluator } from "../src/timer.js";
import { standInTorchEnv, standInTorchModule } from "./support/stand-in-torch.js";

const python = spawnSync("python3", ["--version"]).status === 0;

/** Matmuls (counted from 0, the script's float64 reference first) after which each takes 1.25 × as long. */
const THROTTLE_AFTER = 100;

/** The fake time of matmul `i` when the first ones take `ms` (binary fractions: exact sums in both languages). */
const matmulMs = (i: number, ms: number): number => (i >= THROTTLE_AFTER ? ms * 1.25 : ms);

/** A `torch` with what the script calls; matmuls count themselves and advance the fake clock as matmulMs says (the clock and stubs: standInTorchModule). */
const STAND_IN = standInTorchModule(`
class Tensor:
    def __init__(self, v): self.v = v
    def view(self, dt): return self
    def reshape(self, *shape): return self
    def cuda(self): return self
    def double(self): return self
    def float(self): return self
    def to(self, dt): return self
    def __matmul__(self, other):
        advance_clock()
        return Tensor(self.v)
    def __sub__(self, other): return Tensor([a - b for a, b in zip(self.v, other.v)])
    def abs(self): return Tensor([abs(a) for a in self.v])
    def max(self): return Tensor([max(self.v)])
    def item(self): return self.v[0]
def frombuffer(raw, dtype): return Tensor(list(struct.unpack("<%df" % (len(raw) // 4), bytes(raw))))
`);

describe.skipIf(!python)("bench:tc's torch script", () => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-tc-torch-"));
  mkdirSync(join(dir, "torch"));
  writeFileSync(join(dir, "torch", "__init__.py"), STAND_IN);
  const n = 4;
  const values = new Float32Array(n * n).map((_, i) => i / 7);
  for (const f of ["A.bin", "B.bin", "OUT.bin"]) writeFileSync(join(dir, f), new Uint8Array(values.buffer));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The script's JSON line and how many matmuls it ran, each taking `ms`. */
  function run(ms: number, timing: { number: number; repeat: number; minRepeatMs: number }): { result: Record<string, number>; calls: number } {
    const env = {
      ...process.env,
      PYTHONPATH: dir,
      ...standInTorchEnv(ms, THROTTLE_AFTER, join(dir, "calls.txt")),
      TESSERA_N: String(n),
      TESSERA_DIR: dir,
      TESSERA_OPERANDS: "float32",
      TESSERA_BASELINE: "tf32",
      TESSERA_RELU_ADD: "0",
      ...tcTorchTimingEnv(timing),
    };
    const out = execFileSync("python3", ["-c", TC_TORCH_SCRIPT], { env, encoding: "utf8" });
    return { result: JSON.parse(out.trim().split("\n").pop()!) as Record<string, number>, calls: Number(readFileSync(join(dir, "calls.txt"), "utf8")) };
  }

  // The script's matmuls before its sustained timing: the float64 reference, SGEMM, the baseline, 10
  // warm-ups and 10 bursts of 3 (the last of them stands for timeEvaluator's warm-up run).
  const UNTIMED_AND_BURST = 3 + 10 + 30;

  /** The runs timeEvaluator makes (warm-up included) and its median, its runs being the script's matmuls from the burst's last on. */
  async function evaluator(ms: number, timing: { number: number; repeat: number; minRepeatMs: number }): Promise<{ runs: number; median: number }> {
    let next = UNTIMED_AND_BURST - 1;
    const r = await timeEvaluator(
      {
        warmup: () => void next++,
        timeBatch: (k) => {
          let elapsed = 0;
          for (const end = next + k; next < end; next++) elapsed += matmulMs(next, ms);
          return elapsed;
        },
      },
      timing,
    );
    return { runs: next - (UNTIMED_AND_BURST - 1), median: r.median };
  }

  // Run times that are binary fractions, so that the fake clock's sums are exact in both languages.
  for (const [ms, timing] of [
    [0.375, TC_TIMING],
    [0.0625, { number: 3, repeat: 5, minRepeatMs: 20 }],
  ] as const) {
    it(`times the baseline with timeEvaluator's protocol too (${ms} ms a run, ${JSON.stringify(timing)})`, async () => {
      const { result, calls } = run(ms, timing);
      const want = await evaluator(ms, timing);
      // The burst ends before the throttle; the sustained samples run into it, as ours would.
      expect(result.baselineMs).toBe(ms);
      expect(result.baselineSustainedMs).toBe(want.median);
      expect(result.baselineSustainedMs).toBeGreaterThan(ms);
      // Run for run: the samples grew as timeEvaluator's do (its warm-up stands for a burst run).
      expect(calls - UNTIMED_AND_BURST).toBe(want.runs - 1);
      // ~repeat × minRepeatMs of back-to-back runs, not a burst.
      expect((calls - UNTIMED_AND_BURST) * ms).toBeGreaterThanOrEqual(timing.repeat * timing.minRepeatMs);
    });
  }
});
