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
import {
  ParallelizeVectorizeUnroll,
  RewriteParallelVectorizeUnroll,
  loweredModuleFor,
  replayWithPostprocs,
  tuneContext,
  workloadOf,
} from "../../src/index.js";
import { H100, spaceOf, withForcedDecisions } from "./helpers.js";

/** A matmul M×32×K point: 8×8 threads of 8×4 (M = 64) or 4×4 results, the whole k at once, direct fetches of width 4. */
function fetchPoint(m: number, k: number) {
  const func = matmul(m, 32, k).func;
  const { ctx, gen, spaces } = spaceOf(func);
  const tiles = [[1, 1, 1, 1, 1, 2, 4, m / 8], [1, 1, 1, 1, 1, 2, 4, 4], [1, 1, 1, k]];
  const trace = withForcedDecisions(spaces[0]!.trace, tiles, [4, 0, 0, 4, 0, 0, 0, 0, 0]);
  return { func, out: replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 }) };
}

describe("RewriteCooperativeFetch", () => {
  it("halves the fetch width until it divides the tile's rows (k = 6: float2 loads of A)", () => {
    const { func, out } = fetchPoint(64, 6);
    if (!out.ok) throw new Error(out.detail);
    const module = loweredModuleFor(out.sch.func)!;
    const cuda = codegenCuda(module).source;
    expect(cuda).toMatch(/\*\(float2\*\)\(A \+ /);
    expect(cuda).not.toMatch(/\*\(float4\*\)\(A \+ /);
    const report = compareWithReference(module, func, { seed: 2, rtol: 1e-4, atol: 1e-4 });
    expect(report.passed, formatComparison(report)).toBe(true);
  });

  it("falls back to scalar fetches when no width divides (k = 3)", () => {
    const { func, out } = fetchPoint(64, 3);
    if (!out.ok) throw new Error(out.detail);
    const module = loweredModuleFor(out.sch.func)!;
    expect(codegenCuda(module).source).not.toMatch(/\*\(float[24]\*\)\(A \+ /);
    expect(compareWithReference(module, func, { seed: 2, rtol: 1e-4, atol: 1e-4 }).passed).toBe(true);
  });
});

describe("VerifyGPUCode", () => {
  it("rejects a sample with fewer threads per block than the tiling's low bound, naming it", () => {
    const { ctx, gen, spaces } = spaceOf(gemmReluAdd(64).func);
    const tiles = [[1, 1, 8, 1, 1, 2, 2, 2], [1, 1, 8, 1, 1, 2, 2, 2], [1, 1, 8, 8]];
    const trace = withForcedDecisions(spaces[0]!.trace, tiles, [1, 0, 0, 1, 0, 0, 0, 0, 0]);
    const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
    expect(out).toMatchObject({ ok: false, reason: "postproc verifyGpuCode: fewer threads per block than 64" });
  });

  it("rejects a sample that exceeds the shared memory, with the lowering's reason", () => {
    const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func);
    // 512×512 block tiles, k chunks of 16: (512 + 512) × 16 floats = 64 KiB of shared memory.
    const tiles = [[1, 1, 4, 2, 4, 2, 2, 16], [1, 1, 4, 2, 4, 2, 2, 16], [1, 1, 128, 16]];
    const trace = withForcedDecisions(spaces[0]!.trace, tiles, [1, 0, 0, 1, 0, 0, 0, 0, 0]);
    const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.reason).toMatch(/^postproc verifyGpuCode: GpuVerifyError: .*shared memory/);
  });
});

describe("RewriteParallelVectorizeUnroll on a CPU-style annotation", () => {
  it("parallelizes the leading spatial loops within the budget and vectorizes an innermost spatial loop", () => {
    const func = gemmReluAdd(64).func;
    const ctx = tuneContext(workloadOf(func), H100, { seed: 1, numThreads: 2 });
    const rule = new ParallelizeVectorizeUnroll({ maxJobsPerCore: 16, maxVectorizeExtent: 64, unrollMaxSteps: [], unrollExplicit: true, sampleExplicit: false });
    rule.initialize(ctx);
    const sch = new Schedule(func, { seed: 1 });
    rule.apply(sch, sch.getBlock("root"), ctx);
    expect(new RewriteParallelVectorizeUnroll().apply(sch, ctx)).toEqual({ ok: true });
    const kindsOf = (block: string) => sch.getLoops(sch.getBlock(block)).map((l) => sch.get(l).forKind);
    expect(kindsOf("gemm")).toEqual(["parallel", "serial", "serial"]); // k is a reduction: not vectorized
    expect(kindsOf("relu")).toEqual(["parallel", "vectorized"]);
    expect(sch.get(sch.getBlock("root")).annotations).toEqual({});
  });
});
