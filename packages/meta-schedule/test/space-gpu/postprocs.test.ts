/**
 * Postprocessors on chosen points of the space: the cooperative fetch's vector width reduced where
 * it does not divide, the thread-count bounds of VerifyGPUCode, and the CPU side of
 * RewriteParallelVectorizeUnroll.
 */
import { codegenCuda } from "@tessera/codegen";
import { gemmReluAdd, matmul } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs, tuneContext, workloadOf } from "../../src/index.js";
import { ParallelizeVectorizeUnroll } from "../../src/rules/parallelize-vectorize-unroll.js";
import { RewriteParallelVectorizeUnroll } from "../../src/postproc/rewrite-parallel-vectorize-unroll.js";
import { TVM_CUDA_TILING } from "../../src/rules/multi-level-tiling/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { H100, spaceOf, withForcedDecisions } from "./helpers.js";

/**
 * A 64×32×K matmul point: 8×8 threads, 8×2 rows (4 vthreads × 2 registers) by 1 column each, the
 * whole k (K) per chunk, direct fetches of width 4 (A's tile: 64 rows of K).
 */
function fetchPoint(k: number) {
  const func = matmul(64, 32, k).func;
  const { ctx, gen, spaces } = spaceOf(func);
  const tiles = [
    [1, 4],
    [1, 8],
    [4, 1],
    [1, 8],
  ];
  const trace = withForcedDecisions(spaces[0]!.trace, tiles, [8, 2, 8, 1, k, 4, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0]);
  return { func, out: replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 }) };
}

describe("RewriteCooperativeFetch", () => {
  it("halves the fetch width until it divides the tile's rows (k = 6: float2 loads of A)", () => {
    const { func, out } = fetchPoint(6);
    if (!out.ok) throw new Error(out.detail);
    const module = loweredModuleFor(out.sch.func)!;
    const cuda = codegenCuda(module).source;
    expect(cuda).toMatch(/\*\(float2\*\)\(A \+ /);
    expect(cuda).not.toMatch(/\*\(float4\*\)\(A \+ /);
    const report = compareWithReference(module, func, { seed: 2, rtol: 1e-4, atol: 1e-4 });
    expect(report.passed, formatComparison(report)).toBe(true);
  });

  it("falls back to scalar fetches when no width divides (k = 3)", () => {
    const { func, out } = fetchPoint(3);
    if (!out.ok) throw new Error(out.detail);
    const module = loweredModuleFor(out.sch.func)!;
    expect(codegenCuda(module).source).not.toMatch(/\*\(float[24]\*\)\(A \+ /);
    expect(compareWithReference(module, func, { seed: 2, rtol: 1e-4, atol: 1e-4 }).passed).toBe(true);
  });
});

describe("VerifyGPUCode", () => {
  it("rejects a sample with fewer threads per block than the tiling's low bound, naming it (TVM's tiling)", () => {
    const { ctx, gen, spaces } = spaceOf(gemmReluAdd(64).func, { tiling: TVM_CUDA_TILING });
    const tiles = [
      [8, 1, 2, 2, 2],
      [8, 1, 2, 2, 2],
      [8, 8, 1],
    ];
    const trace = withForcedDecisions(spaces[0]!.trace, tiles, [1, 1, 0]);
    const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
    expect(out).toMatchObject({ ok: false, reason: "postproc verifyGpuCode: fewer threads per block than 64" });
  });

  it("rejects a sample that exceeds the shared memory, with a short reason and the lowering's message as detail", () => {
    const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func);
    // 1024×1024 block tiles (4 vthreads × 32 threads × 8 registers a side), k chunks of 16: 128 KiB.
    const tiles = [
      [2, 4],
      [1, 32],
      [2, 4],
      [1, 32],
    ];
    const trace = withForcedDecisions(spaces[0]!.trace, tiles, [32, 8, 32, 8, 16, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.reason).toBe("postproc verifyGpuCode: exceeds the target's shared memory per block");
      expect(out.detail).toMatch(/^verifyGpuCode: kernel gemm_relu_add_kernel does not fit the target: uses \d+ bytes of shared memory/);
    }
  });
});

describe("RewriteParallelVectorizeUnroll on a CPU-style annotation", () => {
  it("parallelizes the leading spatial loops within the budget and vectorizes an innermost spatial loop", () => {
    const func = gemmReluAdd(64).func;
    const ctx = tuneContext(workloadOf(func), H100, { seed: 1, numThreads: 2 });
    const rule = new ParallelizeVectorizeUnroll({
      maxJobsPerCore: 16,
      maxVectorizeExtent: 64,
      unrollMaxSteps: [],
      unrollExplicit: true,
      sampleExplicit: false,
    });
    rule.initialize(ctx);
    const sch = new Schedule(func, { seed: 1 });
    rule.apply(sch, sch.getBlock("root"), ctx);
    // Every nest pays for a region here (TVM's behaviour); the payoff rule has tests of its own.
    expect(new RewriteParallelVectorizeUnroll({ payoff: () => true }).apply(sch, ctx)).toEqual({ ok: true });
    const kindsOf = (block: string) => sch.getLoops(sch.getBlock(block)).map((l) => sch.get(l).forKind);
    expect(kindsOf("gemm")).toEqual(["parallel", "serial", "serial"]); // k is a reduction: not vectorized
    expect(kindsOf("relu")).toEqual(["parallel", "vectorized"]);
    expect(sch.get(sch.getBlock("root")).annotations).toEqual({});
  });
});
