/**
 * Issue 34's target without a GPU: the simulator and the executor agree bit for bit on fp16 and
 * bf16 kernels at 128³ (16-bit operands, float32 accumulation, a 16-bit epilogue add).
 */
import { lower } from "@tessera/codegen";
import { type HalfGemmDType, halfGemmManualSchedule, halfGemmReluAdd, manualScheduleOf } from "@tessera/corpus";
import { compilePrimFunc, encodeHalfArray, parsePrimFunc, printTVMScript, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference, simulate } from "../src/index.js";

const N = 128;
const PARAMS = { tileX: 64, tileY: 64, tileK: 16, threadTileX: 4, threadTileY: 4, threadTileK: 1 };

describe("16-bit gemm+ReLU+add at 128³, lowered for CUDA and simulated", () => {
  for (const dtype of ["float16", "bfloat16"] as const satisfies readonly HalfGemmDType[]) {
    it(`${dtype}: the simulator's D has the executor's bits on the unscheduled function`, () => {
      const original = halfGemmReluAdd(N, dtype).func;
      const module = lower(halfGemmManualSchedule(N, dtype, PARAMS).func, "nvidia/tesla-t4");
      const expected = randomArgs(original, 5, { low: -2, high: 2 });
      const simulated = expected.map((a) => a.slice());
      expected[3]!.fill(Number.NaN);
      simulated[3]!.fill(Number.NaN);
      compilePrimFunc(original).run(expected);
      const report = simulate(module, simulated);
      expect(report.raceCount).toBe(0);
      const want = encodeHalfArray(dtype, expected[3] as Float32Array);
      const got = encodeHalfArray(dtype, simulated[3] as Float32Array);
      let differing = 0;
      for (let i = 0; i < want.length; i++) if (want[i] !== got[i]) differing++;
      expect(differing).toBe(0);
      // Not vacuous: the outputs are 16-bit values, many of them rounded away from the float32 sums.
      expect(new Set(want).size).toBeGreaterThan(1000);
    });
  }
});

describe("comparing 16-bit outputs with the reference", () => {
  it("allows two ulps of the output format, so a kernel with a float32 epilogue passes at the default tolerance", () => {
    const n = 64;
    const original = halfGemmReluAdd(n, "float16").func;
    // ReLU and the add in float32, rounded once: another correct kernel, often one half away.
    const fused = parsePrimFunc(
      printTVMScript(original)
        .replace(`relu = T.alloc_buffer((${n}, ${n}), "float16")`, `relu = T.alloc_buffer((${n}, ${n}))`)
        .replace('T.Cast("float16", T.max(gemm[v_i, v_j], T.float32(0.0)))', "T.max(gemm[v_i, v_j], T.float32(0.0))")
        .replace("add[v_i, v_j] = relu[v_i, v_j] + C[v_i, v_j]", 'add[v_i, v_j] = T.Cast("float16", relu[v_i, v_j] + T.Cast("float32", C[v_i, v_j]))'),
    );
    const module = lower(manualScheduleOf(fused, n, PARAMS).func, "nvidia/tesla-t4");
    const exact = compareWithReference(module, original, { seed: 2, rtol: 0, atol: 0, widenForDType: false });
    expect(exact.mismatchCount).toBeGreaterThan(0);
    const report = compareWithReference(module, original, { seed: 2 });
    expect(report.passed).toBe(true);
    expect(report.rtol).toBe(1e-5);
  });
});
