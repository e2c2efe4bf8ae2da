/**
 * The fp16-output GEMM (`halfOutputGemm`: float32 accumulation, one rounding to float16 per
 * element, as cuBLAS HGEMM) in MultiLevelTilingTensorCore's spaces on an H100: both the mma.sync and
 * the wgmma space fuse the cast into the accumulator's store (the float32→float16 store intrinsic;
 * no float32 C in memory, no second kernel), and their programs simulate bit for bit equal to the
 * executor, with no race; a consumer that is not a cast is left to the other rules.
 */
import { codegenCuda } from "@tessera/codegen";
import { halfOutputGemm } from "@tessera/corpus";
import { type PrimExpr, cast, compute, createPrimFunc, floatImm, max, mul, placeholder, printTVMScript, reduceAxis, reduceSum } from "@tessera/ir";
import { MMA_INTRINSICS, Schedule } from "@tessera/schedule";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { RewriteTensorize } from "../../src/postproc/rewrite-tensorize.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { multiLevelTilingTensorCore } from "../../src/rules/multi-level-tiling-tensor-core/index.js";
import { AUTO_TENSORIZE } from "../../src/schedule-utils/annotations.js";
import { spaceOf, withForcedDecisions } from "./helpers.js";

const CAST_STORE = MMA_INTRINSICS.storeF32ToF16Global;

/** Replays `trace` with the space's postprocessors; the lowered module's CUDA and its simulation against the executor. */
function simulated(space: ReturnType<typeof spaceOf>, trace: Parameters<typeof replayWithPostprocs>[1], func: Parameters<typeof compareWithReference>[1]) {
  const out = replayWithPostprocs(space.ctx, trace, space.gen.postprocs, { seed: 1 });
  if (!out.ok) return { failure: `${out.reason}: ${out.detail}` };
  const module = loweredModuleFor(out.sch.func)!;
  const report = compareWithReference(module, func, { seed: 5, rtol: 0, atol: 0, widenForDType: false });
  return { failure: report.passed && report.simulation.raceCount === 0 ? undefined : formatComparison(report), module, sch: out.sch };
}

describe("the fp16-output GEMM in the tensor-core spaces", () => {
  it("fuses the cast into the store of both spaces: one block writes D from the registers, C is gone", () => {
    const { spaces } = spaceOf(halfOutputGemm(128));
    expect(spaces).toHaveLength(2);
    for (const sch of spaces) {
      const script = printTVMScript(sch.func);
      expect(script).toContain(`"${AUTO_TENSORIZE}": "${CAST_STORE}"`);
      expect(script).not.toMatch(/with T\.block\("D"\)/);
      expect(script).not.toContain("C = T.alloc_buffer");
    }
  });

  it.each([
    ["N 128, 8 warps, 3 stages, cp.async", [128, 8, 1, 0, 0]],
    ["N 128, 4 warps, 4 stages, TMA", [128, 4, 2, 1, 0]],
    ["N 64, 8 warps, unpipelined", [64, 8, 0, 0, 0]],
  ])("wgmma, %s: simulates bit for bit equal to the executor, storing float16 pairs", (_what, choices) => {
    const func = halfOutputGemm(128);
    const space = spaceOf(func);
    const { failure, module } = simulated(space, withForcedDecisions(space.spaces[1]!.trace, [], choices), func);
    expect(failure).toBeUndefined();
    expect(module!.kernels).toHaveLength(1);
    const cuda = codegenCuda(module!).source;
    expect(cuda).toContain("wgmma.mma_async");
    expect(cuda).toContain("tessera_mma_store_16x16_f32_to_f16(");
  });

  it("mma.sync: random samples simulate bit for bit equal to the executor", () => {
    const func = halfOutputGemm(64);
    const space = spaceOf(func);
    let simulatedCount = 0;
    for (let seed = 1; seed <= 4; seed++) {
      const out = replayWithPostprocs(space.ctx, space.spaces[0]!.trace, space.gen.postprocs, { seed, freshDecisions: true });
      if (!out.ok) continue;
      const module = loweredModuleFor(out.sch.func)!;
      expect(module.kernels).toHaveLength(1);
      const report = compareWithReference(module, func, { seed, rtol: 0, atol: 0, widenForDType: false });
      expect(report.passed, formatComparison(report)).toBe(true);
      expect(report.simulation.raceCount).toBe(0);
      simulatedCount++;
    }
    expect(simulatedCount).toBeGreaterThan(0);
  });

  /** A 128³ fp16 GEMM with float32 C and D = `epilogue(C)`; C is an output too when `cIsOutput`. */
  function gemmWithConsumer(epilogue: (c: PrimExpr) => PrimExpr, cIsOutput = false) {
    const n = 128;
    const A = placeholder([n, n], "float16", "A");
    const B = placeholder([n, n], "float16", "B");
    const k = reduceAxis([0, n], "k");
    const C = compute([n, n], (i, j) => reduceSum(mul(cast("float32", A.at(i, k)), cast("float32", B.at(k, j))), k), "C");
    const D = compute([n, n], (i, j) => epilogue(C.at(i, j)), "D");
    return createPrimFunc(cIsOutput ? [A, B, C, D] : [A, B, D], { name: "gemm_with_consumer" });
  }

  it.each([
    ["a consumer that is not a cast (ReLU, then the cast)", gemmWithConsumer((c) => cast("float16", max(c, floatImm(0, "float32"))))],
    // Regression: reverse_compute_inline refused (C_warp became an output block) and the whole space generation failed.
    ["a cast of a C that is an output too", gemmWithConsumer((c) => cast("float16", c), true)],
  ])("leaves %s alone: the plain float32 store, the consumer a block of its own", (_what, func) => {
    const { ctx } = spaceOf(func);
    const sch = new Schedule(func, { seed: 3 });
    const spaces = multiLevelTilingTensorCore().apply(sch, sch.getBlock("C"), ctx);
    expect(spaces).toHaveLength(2);
    for (const s of spaces) {
      const script = printTVMScript(s.func);
      expect(script).toContain(`"${AUTO_TENSORIZE}": "${MMA_INTRINSICS.storeF32Global}"`);
      expect(script).toMatch(/with T\.block\("D"\)/);
    }
  });

  it("rejects the plain float32 store on the fused block, naming the block and the intrinsic", () => {
    const { spaces } = spaceOf(halfOutputGemm(128));
    const sch = spaces[1]!;
    const store = sch.getBlock("C_warp_o");
    sch.unannotate(store, AUTO_TENSORIZE);
    sch.annotate(store, AUTO_TENSORIZE, MMA_INTRINSICS.storeF32Global);
    const out = new RewriteTensorize().apply(sch);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.reason).toBe(`tensorize with ${MMA_INTRINSICS.storeF32Global} failed`);
    expect(out.detail).toMatch(/^block C_warp_o: /);
  });
});
