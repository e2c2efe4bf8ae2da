/**
 * MultiLevelTilingTensorCore and RewriteTensorize: which blocks the rule takes (an fp16 matmul
 * whose extents are multiples of the intrinsic's tile) and which it leaves to MultiLevelTiling,
 * what it leaves for the postprocessors, and RewriteTensorize's rejection of a block that does not
 * match its intrinsic.
 */
import { type PrimFunc, cast, compute, createPrimFunc, matmul, mul, placeholder, printTVMScript, reduceAxis, reduceSum } from "@tessera/ir";
import { mmaGemm } from "@tessera/corpus";
import { MMA_INTRINSICS, Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { RewriteTensorize } from "../../src/postproc/rewrite-tensorize.js";
import { MultiLevelTilingTensorCore, multiLevelTilingTensorCore } from "../../src/rules/multi-level-tiling-tensor-core/index.js";
import { MMA_FP16_FP32_GROUP, matchMatmul } from "../../src/rules/multi-level-tiling-tensor-core/intrin-group.js";
import { annotatedLoops } from "../../src/postproc/annotated.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { AUTO_TENSORIZE, COOPERATIVE_FETCH, SOFTWARE_PIPELINE, TILING_STRUCTURE } from "../../src/schedule-utils/annotations.js";
import { spaceOf } from "./helpers.js";

/** `C = A·B` (or `A·Bᵀ`) with float16 operands and a float32 accumulator. */
function halfMatmul(n: number, m: number, l: number, transposeB = false): PrimFunc {
  const A = placeholder([n, l], "float16", "A");
  const B = placeholder(transposeB ? [m, l] : [l, m], "float16", "B");
  const k = reduceAxis([0, l], "k");
  const C = compute([n, m], (i, j) => reduceSum(mul(cast("float32", A.at(i, k)), cast("float32", transposeB ? B.at(j, k) : B.at(k, j))), k), "C");
  return createPrimFunc([A, B, C], { name: "half_matmul" });
}

function designSpaceScript(func: PrimFunc, opts: Parameters<typeof spaceOf>[1] = {}): string {
  const { spaces } = spaceOf(func, opts);
  expect(spaces).toHaveLength(1);
  return printTVMScript(spaces[0]!.func);
}

describe("MultiLevelTilingTensorCore", () => {
  it("takes an fp16 matmul with fp32 accumulation: mma intrinsics annotated, warps on threadIdx.y", () => {
    // The mma.sync space (wgmma's, offered beside it on sm_90, is wgmma-space.test.ts's).
    const script = designSpaceScript(mmaGemm(64), { tensorCore: { wgmmaGroups: [] } });
    // The default space samples pipelines up to 4 stages deep: the tiles are in dynamic shared memory.
    for (const intrin of [
      MMA_INTRINSICS.ldmatrixF16ADyn,
      MMA_INTRINSICS.ldmatrixF16BDyn,
      MMA_INTRINSICS.mmaF16F16F32,
      MMA_INTRINSICS.fillF32,
      MMA_INTRINSICS.storeF32Global,
    ])
      expect(script).toContain(`"${AUTO_TENSORIZE}": "${intrin}"`);
    expect(script).toContain('thread="threadIdx.y"');
    expect(script).toContain('scope="warp"');
    expect(script).not.toContain('"SSSSRRS"');
  });

  it("leaves fp32 matmuls, extents off the 16 tile and a transposed B to MultiLevelTiling", () => {
    for (const func of [matmul(64, 64, 64).func, halfMatmul(40, 64, 64), halfMatmul(64, 64, 24), halfMatmul(64, 64, 64, true)]) {
      const script = designSpaceScript(func);
      expect(script).not.toContain(AUTO_TENSORIZE);
      expect(script).toContain(`"${TILING_STRUCTURE}": "SSSSRRS"`);
    }
  });

  it("matches the operands of C += A·B whichever side of the product each is on", () => {
    const A = placeholder([32, 32], "float16", "A");
    const B = placeholder([32, 32], "float16", "B");
    const k = reduceAxis([0, 32], "k");
    const C = compute([32, 32], (i, j) => reduceSum(mul(cast("float32", B.at(k, j)), cast("float32", A.at(i, k))), k), "C");
    const sch = new Schedule(createPrimFunc([A, B, C], { name: "swapped" }));
    const match = matchMatmul(sch.get(sch.getBlock("C")), [MMA_FP16_FP32_GROUP]);
    expect(match?.group).toBe(MMA_FP16_FP32_GROUP);
    const reads = sch.get(sch.getBlock("C")).reads.map((r) => r.buffer.name);
    expect(reads[match!.readA]).toBe("A");
    expect(reads[match!.readB]).toBe("B");
  });

  it("can be turned off with no intrinsic groups, mma.sync and wgmma", () => {
    const { spaces } = spaceOf(mmaGemm(64), { tensorCore: { intrinGroups: [], wgmmaGroups: [] } });
    expect(spaces).toHaveLength(1);
    expect(printTVMScript(spaces[0]!.func)).not.toContain(AUTO_TENSORIZE);
    // Without mma.sync groups the wgmma space is the only one on sm_90.
    const wgmmaOnly = spaceOf(mmaGemm(64), { tensorCore: { intrinGroups: [] } }).spaces;
    expect(wgmmaOnly).toHaveLength(1);
    expect(printTVMScript(wgmmaOnly[0]!.func)).toContain("wgmma_m64n64k16_f16f16f32");
  });

  it("refuses options that are not positive integers, naming the option", () => {
    expect(() => multiLevelTilingTensorCore({ maxKSteps: 0 })).toThrow(/maxKSteps must be a positive integer, got 0/);
    expect(() => new MultiLevelTilingTensorCore({ ...multiLevelTilingTensorCore().options, vectorLoadLens: [] })).toThrow(/vectorLoadLens/);
  });
});

/** The rule applied alone to the fp16 matmul at 64³. */
function ruleApplied(): Schedule {
  const { ctx } = spaceOf(mmaGemm(64));
  const sch = new Schedule(mmaGemm(64), { seed: 3 });
  multiLevelTilingTensorCore().apply(sch, sch.getBlock("C"), ctx);
  return sch;
}

describe("the tensor-core space's postprocessors", () => {
  /** The rule's program with the given fetch width (elements) and the pipeline knob on, through the default postprocessors. */
  function pipelinedWithLanes(lanes: number, lag = 1) {
    const sch = ruleApplied();
    for (const name of ["A_shared.dyn", "B_shared.dyn"]) {
      sch.unannotate(sch.getBlock(name), COOPERATIVE_FETCH);
      sch.annotate(sch.getBlock(name), COOPERATIVE_FETCH, lanes);
    }
    const chunk = annotatedLoops(sch, SOFTWARE_PIPELINE)[0]!.rv;
    sch.unannotate(chunk, SOFTWARE_PIPELINE);
    sch.annotate(chunk, SOFTWARE_PIPELINE, lag);
    const { ctx, gen } = spaceOf(mmaGemm(64));
    sch.enterPostproc();
    const results = gen.postprocs.map((p) => p.apply(sch, ctx));
    return { results, script: printTVMScript(sch.func), sch };
  }

  it("fetches with cp.async when each copy moves 16 bytes", () => {
    const { results, script } = pipelinedWithLanes(8);
    expect(results.every((r) => r.ok)).toBe(true);
    expect(script).toContain('"software_pipeline_async_stages": [0]');
  });

  it("pipelines the k chunks 2 to 4 stages deep, the compute 1 to 3 chunks behind the fetches into dynamic shared memory", () => {
    for (const lag of [1, 2, 3]) {
      const { results, script, sch } = pipelinedWithLanes(8, lag);
      expect(results.map((r) => (r.ok ? "ok" : r.reason))).toEqual(results.map(() => "ok"));
      expect(script).toContain(`"software_pipeline_stage": [0, 0, ${lag}]`);
      expect(script).toContain('"software_pipeline_async_stages": [0]');
      expect(script).toMatch(/A_shared_dyn = T\.alloc_buffer\(.*scope="shared\.dyn"\)/);
      expect(script).toContain("T.ptx_legacy.ldmatrix(");
      // It lowers, with lag + 1 versions of each 64×64 fp16 tile in dynamic shared memory.
      const kernel = loweredModuleFor(sch.func)!.kernels[0]!;
      expect(kernel.launch.dynamicSharedBytes).toBeGreaterThanOrEqual((lag + 1) * 2 * 64 * 64 * 2);
    }
  });

  it("keeps the tiles in static shared memory when at most double buffering is sampled", () => {
    const sch = new Schedule(mmaGemm(64));
    multiLevelTilingTensorCore({ maxPipelineStages: 2 }).apply(sch, sch.getBlock("C"), spaceOf(mmaGemm(64)).ctx);
    const script = printTVMScript(sch.func);
    expect(script).toMatch(/A_shared = T\.alloc_buffer\(.*scope="shared"\)/);
    expect(script).not.toContain("shared.dyn");
  });

  it("keeps a fetch of single halves synchronous (regression: cp.async of 2 bytes failed to lower)", () => {
    const { results, script } = pipelinedWithLanes(1);
    expect(results.map((r) => (r.ok ? "ok" : r.reason))).toEqual(results.map(() => "ok"));
    expect(script).toContain('"software_pipeline_stage"');
    expect(script).not.toContain("software_pipeline_async_stages");
  });
});

describe("RewriteTensorize", () => {
  it("rejects a candidate whose annotated block does not match its intrinsic, naming the block and the intrinsic", () => {
    const sch = ruleApplied();
    // The fill of fp16 accumulators asked for the fp32 init tile.
    sch.unannotate(sch.getBlock("C_init_o"), AUTO_TENSORIZE);
    sch.annotate(sch.getBlock("C_init_o"), AUTO_TENSORIZE, MMA_INTRINSICS.fillF16);
    const out = new RewriteTensorize().apply(sch);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.reason).toBe(`tensorize with ${MMA_INTRINSICS.fillF16} failed`);
    expect(out.detail).toMatch(/^block C_init_o: /);
  });

  it("tensorizes every annotated block and removes the annotations", () => {
    const sch = ruleApplied();
    expect(new RewriteTensorize().apply(sch)).toEqual({ ok: true });
    const script = printTVMScript(sch.func);
    expect(script).not.toContain(AUTO_TENSORIZE);
    expect(script.match(/T\.ptx_legacy\.mma\(/g)?.length).toBe(2);
  });
});
