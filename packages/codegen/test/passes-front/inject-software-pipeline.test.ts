/**
 * injectSoftwarePipeline on small loops written as TVM's tests write them (a thread loop around
 * an annotated loop whose body block allocates the staged buffer): golden TVMScript, the
 * sequential executor's results, and the errors for annotations the body cannot honour.
 */
import { type PrimFunc, forEachStmt, parsePrimFunc, printTVMScript } from "@tessera/ir";
import { mmaGemmSchedule, pipelinedGemmSchedule, wgmmaGemmSchedule } from "@tessera/corpus";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { PASSES_FRONT, simplifyFunc } from "../../src/lower/passes/index.js";
import { injectSoftwarePipeline } from "../../src/lower/passes/inject-software-pipeline.js";
import { lower } from "../../src/lower/pipeline.js";
import { isAllocationAnnotation } from "../../src/lower/util/flat-allocation.js";
import { dedent, errorOf } from "../passes-back/helpers.js";
import { allocatedShapes, expectSameResults, runPasses } from "./helpers.js";

const HEADER = "# from tvm.script import tir as T\n\n";

function parse(src: string): PrimFunc {
  return parsePrimFunc(dedent(src));
}

/** Parses `src`, pipelines it, checks the printed result and that it still computes the same. */
function expectPipelined(src: string, expected: string): PrimFunc {
  const before = parse(src);
  const after = injectSoftwarePipeline(before);
  expect(printTVMScript(after)).toBe(HEADER + dedent(expected));
  expectSameResults(after, before, 5);
  return after;
}

/** `fragment` (dedented), indented by `columns`: a part of the printed function. */
function indented(fragment: string, columns: number): string {
  return dedent(fragment).replace(/^(?=.)/gm, " ".repeat(columns));
}

function annotation(stages: string, order: string, extra = ""): string {
  return `annotations={"software_pipeline_stage": ${stages}, "software_pipeline_order": ${order}${extra}}`;
}

/** TVM's simple_compute: B = A·2 staged in shared memory, C = B + 1 (two statements). */
function simpleCompute(stages: string, order: string, extra = ""): string {
  return `
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            for i in T.serial(16, ${annotation(stages, order, extra)}):
                with T.block():
                    B = T.alloc_buffer((16, 1), scope="shared")
                    B[tx, 0] = A[tx, i] * T.float32(2)
                    C[tx, i] = B[tx, 0] + T.float32(1)`;
}

/** TVM's three_stage_compute: A → B → C → D. */
function threeStageCompute(stages: string, order: string, extra = ""): string {
  return `
    @T.prim_func
    def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            for i in T.serial(16, ${annotation(stages, order, extra)}):
                with T.block():
                    B = T.alloc_buffer((16, 1), scope="shared")
                    C = T.alloc_buffer((16, 1), scope="shared")
                    B[tx, 0] = A[tx, i] * T.float32(2)
                    C[tx, 0] = B[tx, 0] + T.float32(2)
                    D[tx, i] = C[tx, 0] + T.float32(1)`;
}

describe("injectSoftwarePipeline", () => {
  test("two stages: the producer runs one iteration ahead into the other version of a double buffer", () => {
    expectPipelined(
      simpleCompute("[0, 1]", "[0, 1]", `, "pragma_unroll_explicit": 1`),
      `
      @T.prim_func
      def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
          # with T.block("root"):
          for tx in T.thread_binding(16, thread="threadIdx.x"):
              with T.block(""):
                  T.reads(A[tx, 0:16])
                  T.writes(C[tx, 0:16])
                  B = T.alloc_buffer((2, 16, 1), scope="shared")
                  with T.block(""):
                      T.reads(A[tx, 0])
                      T.writes(B[0, tx, 0])
                      B[0, tx, 0] = A[tx, 0] * T.float32(2.0)
                  with T.block(""):
                      T.reads(A[tx, 1:16], B[0:2, tx, 0])
                      T.writes(B[0:2, tx, 0], C[tx, 0:15])
                      for i in T.serial(15, annotations={"pragma_unroll_explicit": 1}):
                          with T.block(""):
                              T.reads(A[tx, i + 1])
                              T.writes(B[(i + 1) % 2, tx, 0])
                              B[(i + 1) % 2, tx, 0] = A[tx, i + 1] * T.float32(2.0)
                          with T.block(""):
                              T.reads(B[i % 2, tx, 0])
                              T.writes(C[tx, i])
                              C[tx, i] = B[i % 2, tx, 0] + T.float32(1.0)
                  with T.block(""):
                      T.reads(B[1, tx, 0])
                      T.writes(C[tx, 15])
                      C[tx, 15] = B[1, tx, 0] + T.float32(1.0)`,
    );
  });

  test("blockRegions: false (the lowering pipeline's pass) leaves the blocks the pass makes without regions, and nothing else changes", () => {
    const before = parse(simpleCompute("[0, 1]", "[0, 1]"));
    const withRegions = printTVMScript(injectSoftwarePipeline(before));
    const after = injectSoftwarePipeline(before, { blockRegions: false });
    expect(withRegions).toContain("T.reads(A[tx, 0:16])");
    // Every block of this output is the pass's own (the allocating block, the sections, the blockized statements).
    expect(printTVMScript(after)).toBe(withRegions.replace(/T\.(reads|writes)\(.+\)$/gm, "T.$1()"));
    expectSameResults(after, before, 5);
  });

  test("the consumer ordered before the producer reads last iteration's value: one version suffices", () => {
    expectPipelined(
      simpleCompute("[0, 1]", "[1, 0]"),
      `
      @T.prim_func
      def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
          # with T.block("root"):
          for tx in T.thread_binding(16, thread="threadIdx.x"):
              with T.block(""):
                  T.reads(A[tx, 0:16])
                  T.writes(C[tx, 0:16])
                  B = T.alloc_buffer((16, 1), scope="shared")
                  with T.block(""):
                      T.reads(A[tx, 0])
                      T.writes(B[tx, 0])
                      B[tx, 0] = A[tx, 0] * T.float32(2.0)
                  with T.block(""):
                      T.reads(B[tx, 0], A[tx, 1:16])
                      T.writes(C[tx, 0:15], B[tx, 0])
                      for i in range(15):
                          with T.block(""):
                              T.reads(B[tx, 0])
                              T.writes(C[tx, i])
                              C[tx, i] = B[tx, 0] + T.float32(1.0)
                          with T.block(""):
                              T.reads(A[tx, i + 1])
                              T.writes(B[tx, 0])
                              B[tx, 0] = A[tx, i + 1] * T.float32(2.0)
                  with T.block(""):
                      T.reads(B[tx, 0])
                      T.writes(C[tx, 15])
                      C[tx, 15] = B[tx, 0] + T.float32(1.0)`,
    );
  });

  test("three stages: unrolled prologue and epilogue whose statements are guarded by their iteration's bounds", () => {
    expectPipelined(
      threeStageCompute("[0, 1, 2]", "[0, 1, 2]"),
      `
      @T.prim_func
      def main(A: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
          # with T.block("root"):
          for tx in T.thread_binding(16, thread="threadIdx.x"):
              with T.block(""):
                  T.reads(A[tx, 0:16])
                  T.writes(D[tx, 0:16])
                  B = T.alloc_buffer((2, 16, 1), scope="shared")
                  C = T.alloc_buffer((2, 16, 1), scope="shared")
                  with T.block(""):
                      T.reads(A[tx, 0:2], B[0:2, tx, 0])
                      T.writes(B[0:2, tx, 0], C[0:2, tx, 0])
                      for i in T.unroll(2):
                          with T.block(""):
                              T.reads(A[tx, i])
                              T.writes(B[0:2, tx, 0])
                              B[i, tx, 0] = A[tx, i] * T.float32(2.0)
                          with T.block(""):
                              T.where(i == 1)
                              T.reads(B[0:2, tx, 0])
                              T.writes(C[0:2, tx, 0])
                              C[(i + 1) % 2, tx, 0] = B[(i + 1) % 2, tx, 0] + T.float32(2.0)
                  with T.block(""):
                      T.reads(A[tx, 2:16], B[0:2, tx, 0], C[0:2, tx, 0])
                      T.writes(B[0:2, tx, 0], C[0:2, tx, 0], D[tx, 0:14])
                      for i in range(14):
                          with T.block(""):
                              T.reads(A[tx, i + 2])
                              T.writes(B[0:2, tx, 0])
                              B[i % 2, tx, 0] = A[tx, i + 2] * T.float32(2.0)
                          with T.block(""):
                              T.reads(B[0:2, tx, 0])
                              T.writes(C[0:2, tx, 0])
                              C[(i + 1) % 2, tx, 0] = B[(i + 1) % 2, tx, 0] + T.float32(2.0)
                          with T.block(""):
                              T.reads(C[0:2, tx, 0])
                              T.writes(D[tx, i])
                              D[tx, i] = C[i % 2, tx, 0] + T.float32(1.0)
                  with T.block(""):
                      T.reads(B[0:2, tx, 0], C[0:2, tx, 0])
                      T.writes(C[0:2, tx, 0], D[tx, 14:16])
                      for i in T.unroll(2):
                          with T.block(""):
                              T.where(i < 1)
                              T.reads(B[0:2, tx, 0])
                              T.writes(C[0:2, tx, 0])
                              C[(i + 1) % 2, tx, 0] = B[(i + 1) % 2, tx, 0] + T.float32(2.0)
                          with T.block(""):
                              T.reads(C[0:2, tx, 0])
                              T.writes(D[tx, i + 14])
                              D[tx, i + 14] = C[i, tx, 0] + T.float32(1.0)`,
    );
  });

  test("a shared tile a wgmma reads keeps one version more than TVM's count (its reads stay in flight an iteration longer); an mma.sync one does not", () => {
    const pipelined = (func: PrimFunc): Record<string, { shape: number[] }> => {
      const module = lower(func, "nvidia/h100", { recordStages: true });
      return allocatedShapes(module.stages.find((st) => st.pass === "injectSoftwarePipeline")!.func);
    };
    // wgmma, 3 stages: fetched one k stage ahead (stages [0, 0, 1], TVM: 2 versions), 3 versions.
    const wgmma = pipelined(wgmmaGemmSchedule(256, { warpgroups: 2, n: 128, pipelineStages: 3 }).func);
    expect(wgmma["A_shared.dyn"]?.shape[0]).toBe(3);
    expect(wgmma["B_shared.dyn"]?.shape[0]).toBe(3);
    // The same with each stage's wgmmas before the copies (order [1, 2, 0]; TVM: 1 version, its
    // reader ending before the writer runs): 3 versions, the wgmmas still read version k % 3
    // while the copies of k + 1 land and those of k + 2 are issued.
    const wgmmaFirst = pipelined(wgmmaGemmSchedule(256, { warpgroups: 2, n: 128, pipelineStages: 3, wgmmaBeforeCopies: true }).func);
    expect(wgmmaFirst["A_shared.dyn"]?.shape[0]).toBe(3);
    expect(wgmmaFirst["B_shared.dyn"]?.shape[0]).toBe(3);
    // mma.sync, 3 stages: fetched two ahead (stages [0, 0, 2]), TVM's 3 versions.
    const mma = pipelined(mmaGemmSchedule(256, { warps: [2, 2], tilesPerWarp: [2, 2], kTiles: 2, padShared: false, swizzle: true, pipelineStages: 3 }).func);
    expect(mma["A_shared.dyn"]?.shape[0]).toBe(3);
    expect(mma["B_shared.dyn"]?.shape[0]).toBe(3);
  });

  test("a producer three stages ahead of its consumer keeps four versions", () => {
    const after = injectSoftwarePipeline(parse(simpleCompute("[0, 3]", "[0, 1]")));
    expect(allocatedShapes(after)["B"]).toEqual({ shape: [4, 16, 1] });
    expectSameResults(after, parse(simpleCompute("[0, 3]", "[0, 1]")), 2);
  });

  describe("double_buffer_scope: a block names one of its write regions, whose buffer keeps two versions", () => {
    /** S is written and read in stage 0 (one version would do); its writer asks for two. */
    const src = (index: number): string => `
      @T.prim_func
      def main(A: T.Buffer((8, 4), "float32"), C: T.Buffer((8, 4), "float32")):
          for i in T.serial(8, ${annotation("[0, 0, 1]", "[0, 1, 2]")}):
              with T.block():
                  S = T.alloc_buffer((4,), scope="shared")
                  L = T.alloc_buffer((4,), scope="local")
                  for j in range(4):
                      with T.block():
                          T.reads(A[i, j])
                          T.writes(S[j])
                          T.block_attr({"double_buffer_scope": ${index}})
                          S[j] = A[i, j] + T.float32(1)
                  for j in range(4):
                      L[j] = S[j] * T.float32(2)
                  for j in range(4):
                      C[i, j] = L[j]`;

    test("the named buffer gets a version index, and the pipeline computes what the loop did", () => {
      const before = parse(src(0));
      const after = injectSoftwarePipeline(before);
      expect(allocatedShapes(after)).toEqual({ S: { shape: [2, 4] }, L: { shape: [2, 4] } });
      expectSameResults(after, before, 3);
    });

    test("an index past the block's write regions is an error naming the block and the loop", () => {
      expect(errorOf(() => injectSoftwarePipeline(parse(src(1))), LoweringError).message).toBe(
        `injectSoftwarePipeline: loop i has block "" with double_buffer_scope = 1, which is not the index of one of its 1 write regions`,
      );
    });
  });

  test("fewer iterations than stages: prologue and epilogue overlap, each statement guarded on both bounds (TVM's less_loop_than_num_stage)", () => {
    expectPipelined(
      `
      @T.prim_func
      def main(A: T.Buffer((2,), "float32"), E: T.Buffer((2,), "float32")):
          for i in T.serial(2, ${annotation("[0, 1, 2, 3]", "[0, 1, 2, 3]")}):
              with T.block():
                  B = T.alloc_buffer((1,), scope="shared")
                  C = T.alloc_buffer((1,), scope="shared")
                  D = T.alloc_buffer((1,), scope="shared")
                  B[0] = A[i] * T.float32(2)
                  C[0] = B[0] + T.float32(3)
                  D[0] = C[0] + T.float32(4)
                  E[i] = D[0] + T.float32(5)`,
      `
      @T.prim_func
      def main(A: T.Buffer((2,), "float32"), E: T.Buffer((2,), "float32")):
          # with T.block("root"):
          with T.block(""):
              T.reads(A[0:3])
              T.writes(E[0:2])
              B = T.alloc_buffer((2, 1), scope="shared")
              C = T.alloc_buffer((2, 1), scope="shared")
              D = T.alloc_buffer((2, 1), scope="shared")
              with T.block(""):
                  T.reads(A[0:3], B[0:2, 0], C[0:2, 0])
                  T.writes(B[0:2, 0], C[0:2, 0], D[0:2, 0])
                  for i in T.unroll(3):
                      with T.block(""):
                          T.where(i < 2)
                          T.reads(A[i])
                          T.writes(B[0:2, 0])
                          B[i % 2, 0] = A[i] * T.float32(2.0)
                      with T.block(""):
                          T.where(1 <= i)
                          T.reads(B[0:2, 0])
                          T.writes(C[0:2, 0])
                          C[(i + 1) % 2, 0] = B[(i + 1) % 2, 0] + T.float32(3.0)
                      with T.block(""):
                          T.where(i == 2)
                          T.reads(C[0:2, 0])
                          T.writes(D[0:2, 0])
                          D[i % 2, 0] = C[i % 2, 0] + T.float32(4.0)
              with T.block(""):
                  T.reads()
                  T.writes()
                  T.evaluate(0)
              with T.block(""):
                  T.reads(C[0:2, 0], D[0:2, 0])
                  T.writes(D[0:2, 0], E[0:2])
                  for i in T.unroll(2):
                      with T.block(""):
                          T.where(i < 1)
                          T.reads(C[0:2, 0])
                          T.writes(D[0:2, 0])
                          D[(i + 1) % 2, 0] = C[(i + 1) % 2, 0] + T.float32(4.0)
                      with T.block(""):
                          T.reads(D[0:2, 0])
                          T.writes(E[i])
                          E[i] = D[i, 0] + T.float32(5.0)`,
    );
  });

  test("nested grouping blocks are opened up and their allocations join the pipeline's (TVM's dag_interleaving)", () => {
    expectPipelined(
      `
      @T.prim_func
      def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
          for tx in T.thread_binding(16, thread="threadIdx.x"):
              for i in T.serial(16, ${annotation("[0, 0, 0, 0, 1]", "[0, 2, 1, 3, 4]")}):
                  with T.block():
                      AS = T.alloc_buffer((16, 1), scope="shared")
                      BS = T.alloc_buffer((16, 1), scope="shared")
                      AS[tx, 0] = A[tx, i] * T.float32(2)
                      with T.block():
                          AL = T.alloc_buffer((1, 1), scope="local")
                          BL = T.alloc_buffer((1, 1), scope="local")
                          AL[0, 0] = AS[tx, 0]
                          BS[tx, 0] = B[tx, i] + T.float32(2)
                          BL[0, 0] = BS[tx, 0]
                          C[tx, i] = AL[0, 0] * BL[0, 0]`,
      `
      @T.prim_func
      def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
          # with T.block("root"):
          for tx in T.thread_binding(16, thread="threadIdx.x"):
              with T.block(""):
                  T.reads(A[tx, 0:16], B[tx, 0:16])
                  T.writes(C[tx, 0:16])
                  AS = T.alloc_buffer((16, 1), scope="shared")
                  BS = T.alloc_buffer((16, 1), scope="shared")
                  AL = T.alloc_buffer((2, 1, 1), scope="local")
                  BL = T.alloc_buffer((2, 1, 1), scope="local")
                  with T.block(""):
                      T.reads(A[tx, 0], B[tx, 0], AS[tx, 0], BS[tx, 0])
                      T.writes(AS[tx, 0], BS[tx, 0], AL[0, 0, 0], BL[0, 0, 0])
                      with T.block(""):
                          T.reads(A[tx, 0])
                          T.writes(AS[tx, 0])
                          AS[tx, 0] = A[tx, 0] * T.float32(2.0)
                      with T.block(""):
                          T.reads(B[tx, 0])
                          T.writes(BS[tx, 0])
                          BS[tx, 0] = B[tx, 0] + T.float32(2.0)
                      with T.block(""):
                          T.reads(AS[tx, 0])
                          T.writes(AL[0, 0, 0])
                          AL[0, 0, 0] = AS[tx, 0]
                      with T.block(""):
                          T.reads(BS[tx, 0])
                          T.writes(BL[0, 0, 0])
                          BL[0, 0, 0] = BS[tx, 0]
                  with T.block(""):
                      T.reads(A[tx, 1:16], B[tx, 1:16], AS[tx, 0], BS[tx, 0], AL[0:2, 0, 0], BL[0:2, 0, 0])
                      T.writes(AS[tx, 0], BS[tx, 0], AL[0:2, 0, 0], BL[0:2, 0, 0], C[tx, 0:15])
                      for i in range(15):
                          with T.block(""):
                              T.reads(A[tx, i + 1])
                              T.writes(AS[tx, 0])
                              AS[tx, 0] = A[tx, i + 1] * T.float32(2.0)
                          with T.block(""):
                              T.reads(B[tx, i + 1])
                              T.writes(BS[tx, 0])
                              BS[tx, 0] = B[tx, i + 1] + T.float32(2.0)
                          with T.block(""):
                              T.reads(AS[tx, 0])
                              T.writes(AL[(i + 1) % 2, 0, 0])
                              AL[(i + 1) % 2, 0, 0] = AS[tx, 0]
                          with T.block(""):
                              T.reads(BS[tx, 0])
                              T.writes(BL[(i + 1) % 2, 0, 0])
                              BL[(i + 1) % 2, 0, 0] = BS[tx, 0]
                          with T.block(""):
                              T.reads(AL[i % 2, 0, 0], BL[i % 2, 0, 0])
                              T.writes(C[tx, i])
                              C[tx, i] = AL[i % 2, 0, 0] * BL[i % 2, 0, 0]
                  with T.block(""):
                      T.reads(AL[1, 0, 0], BL[1, 0, 0])
                      T.writes(C[tx, 15])
                      C[tx, 15] = AL[1, 0, 0] * BL[1, 0, 0]`,
    );
  });

  test("the GEMM k loop after compaction: the shared tiles get two versions, the accumulator none", () => {
    const sch = pipelinedGemmSchedule(128);
    const front = PASSES_FRONT.slice(0, PASSES_FRONT.findIndex((p) => p.name === "injectSoftwarePipeline") + 1);
    const after = runPasses(sch.func, front);
    expect(allocatedShapes(after)).toEqual({
      matmul_local: { shape: [4, 4] },
      A_shared: { shape: [2, 64, 8] },
      B_shared: { shape: [2, 8, 64] },
    });
    const loops: string[] = [];
    forEachStmt(after.body, (s) => {
      if (s.kind === "For" && s.loopVar.name === "k_0") loops.push(`${s.forKind} ${s.extent.kind === "IntImm" ? s.extent.value : "?"}`);
    });
    expect(loops).toEqual(["serial 15"]);
    expectSameResults(after, sch.func, 9);
  });

  describe("asynchronous stages: TVM's commit and wait attributes", () => {
    test("a two-stage pipeline waits until one commit group is in flight, and for none in the epilogue", () => {
      expect(printTVMScript(injectSoftwarePipeline(parse(simpleCompute("[0, 1]", "[0, 1]", `, "software_pipeline_async_stages": [0]`))))).toBe(
        HEADER +
          dedent(`
          @T.prim_func
          def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
              # with T.block("root"):
              for tx in T.thread_binding(16, thread="threadIdx.x"):
                  with T.block(""):
                      T.reads(A[tx, 0:16])
                      T.writes(C[tx, 0:16])
                      B = T.alloc_buffer((2, 16, 1), scope="shared")
                      with T.block(""):
                          T.reads(A[tx, 0])
                          T.writes(B[0, tx, 0])
                          T.attr(None, "async_commit_queue_scope", 0)
                          T.attr(None, "async_scope", 1)
                          B[0, tx, 0] = A[tx, 0] * T.float32(2.0)
                      with T.block(""):
                          T.reads(A[tx, 1:16], B[0:2, tx, 0])
                          T.writes(B[0:2, tx, 0], C[tx, 0:15])
                          for i in range(15):
                              with T.block(""):
                                  T.reads(A[tx, i + 1])
                                  T.writes(B[(i + 1) % 2, tx, 0])
                                  T.attr(None, "async_commit_queue_scope", 0)
                                  T.attr(None, "async_scope", 1)
                                  B[(i + 1) % 2, tx, 0] = A[tx, i + 1] * T.float32(2.0)
                              with T.block(""):
                                  T.reads(B[i % 2, tx, 0])
                                  T.writes(C[tx, i])
                                  T.attr(None, "async_wait_queue_scope", 0)
                                  T.attr(None, "async_wait_inflight_count", 1)
                                  C[tx, i] = B[i % 2, tx, 0] + T.float32(1.0)
                      with T.block(""):
                          T.reads(B[1, tx, 0])
                          T.writes(C[tx, 15])
                          T.attr(None, "async_wait_queue_scope", 0)
                          T.attr(None, "async_wait_inflight_count", 0)
                          C[tx, 15] = B[1, tx, 0] + T.float32(1.0)`),
      );
    });

    test("four stages: three groups in flight in the body, 2 - i in the epilogue", () => {
      const text = printTVMScript(injectSoftwarePipeline(parse(simpleCompute("[0, 3]", "[0, 1]", `, "software_pipeline_async_stages": [0]`))));
      expect(text).toContain(
        indented(
          `
                      for i in range(13):
                          with T.block(""):
                              T.reads(A[tx, i + 3])
                              T.writes(B[(i + 3) % 4, tx, 0])
                              T.attr(None, "async_commit_queue_scope", 0)
                              T.attr(None, "async_scope", 1)
                              B[(i + 3) % 4, tx, 0] = A[tx, i + 3] * T.float32(2.0)
                          with T.block(""):
                              T.reads(B[0:4, tx, 0])
                              T.writes(C[tx, i])
                              T.attr(None, "async_wait_queue_scope", 0)
                              T.attr(None, "async_wait_inflight_count", 3)
                              C[tx, i] = B[i % 4, tx, 0] + T.float32(1.0)
                  with T.block(""):
                      T.reads(B[0:4, tx, 0])
                      T.writes(C[tx, 13:16])
                      for i in T.unroll(3):
                          with T.block(""):
                              T.reads(B[0:4, tx, 0])
                              T.writes(C[tx, i + 13])
                              T.attr(None, "async_wait_queue_scope", 0)
                              T.attr(None, "async_wait_inflight_count", 2 - i)
                              C[tx, i + 13] = B[i + 1, tx, 0] + T.float32(1.0)`,
          12,
        ),
      );
    });

    test("producers interleaved with their consumer commit separately, in the prologue too; the wait counts both groups (TVM's async_producer_interleaving)", () => {
      // The prologue has no consumer between the producers, but merging them there would leave
      // the body's first wait (5 groups in flight) short of chunk 0: 3 merged groups + A(3) are 4.
      const src = `
        @T.prim_func
        def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for i in T.serial(16, ${annotation("[0, 0, 3]", "[0, 2, 1]", `, "software_pipeline_async_stages": [0]`)}):
                    with T.block():
                        A_shared = T.alloc_buffer((16, 1), scope="shared")
                        B_shared = T.alloc_buffer((16, 1), scope="shared")
                        A_shared[tx, 0] = A[tx, i]
                        B_shared[tx, 0] = B[tx, i]
                        C[tx, i] = A_shared[tx, 0] + B_shared[tx, 0]`;
      expect(printTVMScript(injectSoftwarePipeline(parse(src)))).toBe(
        HEADER +
          dedent(`
          @T.prim_func
          def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
              # with T.block("root"):
              for tx in T.thread_binding(16, thread="threadIdx.x"):
                  with T.block(""):
                      T.reads(A[tx, 0:16], B[tx, 0:16])
                      T.writes(C[tx, 0:16])
                      A_shared = T.alloc_buffer((4, 16, 1), scope="shared")
                      B_shared = T.alloc_buffer((4, 16, 1), scope="shared")
                      with T.block(""):
                          T.reads(A[tx, 0:3], B[tx, 0:3])
                          T.writes(A_shared[0:3, tx, 0], B_shared[0:3, tx, 0])
                          for i in T.unroll(3):
                              with T.block(""):
                                  T.reads(A[tx, i])
                                  T.writes(A_shared[i, tx, 0])
                                  T.attr(None, "async_commit_queue_scope", 0)
                                  T.attr(None, "async_scope", 1)
                                  A_shared[i, tx, 0] = A[tx, i]
                              with T.block(""):
                                  T.reads(B[tx, i])
                                  T.writes(B_shared[i, tx, 0])
                                  T.attr(None, "async_commit_queue_scope", 0)
                                  T.attr(None, "async_scope", 1)
                                  B_shared[i, tx, 0] = B[tx, i]
                      with T.block(""):
                          T.reads(A[tx, 3:16], A_shared[0:4, tx, 0], B_shared[0:4, tx, 0], B[tx, 3:16])
                          T.writes(A_shared[0:4, tx, 0], C[tx, 0:13], B_shared[0:4, tx, 0])
                          for i in range(13):
                              with T.block(""):
                                  T.reads(A[tx, i + 3])
                                  T.writes(A_shared[(i + 3) % 4, tx, 0])
                                  T.attr(None, "async_commit_queue_scope", 0)
                                  T.attr(None, "async_scope", 1)
                                  A_shared[(i + 3) % 4, tx, 0] = A[tx, i + 3]
                              with T.block(""):
                                  T.reads(A_shared[0:4, tx, 0], B_shared[0:4, tx, 0])
                                  T.writes(C[tx, i])
                                  T.attr(None, "async_wait_queue_scope", 0)
                                  T.attr(None, "async_wait_inflight_count", 5)
                                  C[tx, i] = A_shared[i % 4, tx, 0] + B_shared[i % 4, tx, 0]
                              with T.block(""):
                                  T.reads(B[tx, i + 3])
                                  T.writes(B_shared[(i + 3) % 4, tx, 0])
                                  T.attr(None, "async_commit_queue_scope", 0)
                                  T.attr(None, "async_scope", 1)
                                  B_shared[(i + 3) % 4, tx, 0] = B[tx, i + 3]
                      with T.block(""):
                          T.reads(A_shared[0:4, tx, 0], B_shared[0:4, tx, 0])
                          T.writes(C[tx, 13:16])
                          for i in T.unroll(3):
                              with T.block(""):
                                  T.reads(A_shared[0:4, tx, 0], B_shared[0:4, tx, 0])
                                  T.writes(C[tx, i + 13])
                                  T.attr(None, "async_wait_queue_scope", 0)
                                  T.attr(None, "async_wait_inflight_count", 2 - i)
                                  C[tx, i + 13] = A_shared[i + 1, tx, 0] + B_shared[i + 1, tx, 0]`),
      );
    });

    test("producers of one stage separated by another statement commit as two groups (TVM would group the statement between)", () => {
      const src = `
        @T.prim_func
        def main(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32"), D: T.Buffer((16, 16), "float32")):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for i in T.serial(16, ${annotation("[0, 1, 0, 2]", "[0, 1, 2, 3]", `, "software_pipeline_async_stages": [0]`)}):
                    with T.block():
                        X = T.alloc_buffer((16, 1), scope="shared")
                        Y = T.alloc_buffer((16, 1), scope="shared")
                        X[tx, 0] = A[tx, i]
                        D[tx, i] = B[tx, i] * T.float32(2)
                        Y[tx, 0] = B[tx, i]
                        C[tx, i] = X[tx, 0] + Y[tx, 0]`;
      // Two groups per iteration, two iterations ahead: X(i) and Y(i) are done when at most 4 are in flight.
      expect(printTVMScript(injectSoftwarePipeline(parse(src)))).toContain(
        indented(
          `
                  for i in range(14):
                      with T.block(""):
                          T.reads(A[tx, i + 2])
                          T.writes(X[(i + 2) % 3, tx, 0])
                          T.attr(None, "async_commit_queue_scope", 0)
                          T.attr(None, "async_scope", 1)
                          X[(i + 2) % 3, tx, 0] = A[tx, i + 2]
                      with T.block(""):
                          T.reads(B[tx, i + 1])
                          T.writes(D[tx, i + 1])
                          D[tx, i + 1] = B[tx, i + 1] * T.float32(2.0)
                      with T.block(""):
                          T.reads(B[tx, i + 2])
                          T.writes(Y[(i + 2) % 3, tx, 0])
                          T.attr(None, "async_commit_queue_scope", 0)
                          T.attr(None, "async_scope", 1)
                          Y[(i + 2) % 3, tx, 0] = B[tx, i + 2]
                      with T.block(""):
                          T.reads(X[0:3, tx, 0], Y[0:3, tx, 0])
                          T.writes(C[tx, i])
                          T.attr(None, "async_wait_queue_scope", 0)
                          T.attr(None, "async_wait_inflight_count", 4)
                          C[tx, i] = X[i % 3, tx, 0] + Y[i % 3, tx, 0]`,
          16,
        ),
      );
    });

    test("two async stages: a consumer that also produces commits to its own queue; a predicated producer's count is conditional", () => {
      const text = printTVMScript(injectSoftwarePipeline(parse(threeStageCompute("[0, 1, 2]", "[0, 1, 2]", `, "software_pipeline_async_stages": [0, 1]`))));
      expect(text).toContain(
        indented(
          `
                  for i in T.unroll(2):
                      with T.block(""):
                          T.where(i < 1)
                          T.reads(B[(i + 1) % 2, tx, 0])
                          T.writes(C[(i + 1) % 2, tx, 0])
                          T.attr(None, "async_commit_queue_scope", 1)
                          T.attr(None, "async_wait_queue_scope", 0)
                          T.attr(None, "async_wait_inflight_count", i * -1)
                          T.attr(None, "async_scope", 1)
                          C[(i + 1) % 2, tx, 0] = B[(i + 1) % 2, tx, 0] + T.float32(2.0)
                      with T.block(""):
                          T.reads(C[0:2, tx, 0])
                          T.writes(D[tx, i + 14])
                          T.attr(None, "async_wait_queue_scope", 1)
                          T.attr(None, "async_wait_inflight_count", T.if_then_else(i < 1, 1, 0))
                          D[tx, i + 14] = C[i, tx, 0] + T.float32(1.0)`,
          16,
        ),
      );
      expect(text).toContain(
        indented(
          `
                  with T.block(""):
                      T.reads(B[(i + 1) % 2, tx, 0])
                      T.writes(C[(i + 1) % 2, tx, 0])
                      T.attr(None, "async_commit_queue_scope", 1)
                      T.attr(None, "async_wait_queue_scope", 0)
                      T.attr(None, "async_wait_inflight_count", 1)
                      T.attr(None, "async_scope", 1)
                      C[(i + 1) % 2, tx, 0] = B[(i + 1) % 2, tx, 0] + T.float32(2.0)
                  with T.block(""):
                      T.reads(C[0:2, tx, 0])
                      T.writes(D[tx, i])
                      T.attr(None, "async_wait_queue_scope", 1)
                      T.attr(None, "async_wait_inflight_count", 1)
                      D[tx, i] = C[i % 2, tx, 0] + T.float32(1.0)`,
          20,
        ),
      );
    });
  });

  test("through lower(), async stages keep their queue attributes, copies become cp.async and threadSync puts a barrier after every wait", () => {
    const kernel = lower(pipelinedGemmSchedule(128, { stages: [0, 0, 1], order: [0, 1, 2], asyncStages: [0] }), "nvidia/h100").kernels[0]!;
    const keys = new Map<string, number>();
    let copies = 0;
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "ptx_cp_async") copies++;
      if (s.kind !== "AttrStmt" || s.key === "thread_extent" || isAllocationAnnotation(s)) return;
      keys.set(s.key, (keys.get(s.key) ?? 0) + 1);
      if (s.key === "async_wait_inflight_count") {
        const first = s.body.kind === "SeqStmt" ? s.body.seq[0]! : s.body;
        expect(first.kind === "Evaluate" && first.value.kind === "Call" && first.value.op === "tvm_storage_sync").toBe(true);
      }
    });
    // Prologue and body commit (one group of both fetches each); body and epilogue wait;
    // injectPTXAsyncCopy turned the stores of the four async scopes into cp.async calls.
    expect(Object.fromEntries(keys)).toEqual({
      async_commit_queue_scope: 2,
      async_wait_queue_scope: 2,
      async_wait_inflight_count: 2,
    });
    expect(copies).toBe(4);
  });

  describe("errors name the loop and the reason", () => {
    function pipelineError(src: string): string {
      return errorOf(() => injectSoftwarePipeline(parse(src)), LoweringError).message;
    }

    test("a stage annotation without an order, and the reverse", () => {
      const onlyStage = simpleCompute("[0, 1]", "[0, 1]").replace(`, "software_pipeline_order": [0, 1]`, "");
      expect(pipelineError(onlyStage)).toBe(
        "injectSoftwarePipeline: loop i has software_pipeline_stage but no software_pipeline_order: the order of the statements is not defined",
      );
      const onlyOrder = simpleCompute("[0, 1]", "[0, 1]").replace(`"software_pipeline_stage": [0, 1], `, "");
      expect(pipelineError(onlyOrder)).toContain("loop i has software_pipeline_order but no software_pipeline_stage");
    });

    test("annotation values that are not lists of non-negative integers", () => {
      expect(pipelineError(simpleCompute("1", "[0, 1]"))).toContain("loop i has software_pipeline_stage = 1; it must be a list of non-negative integers");
      expect(pipelineError(simpleCompute("[0, -1]", "[0, 1]"))).toContain("software_pipeline_stage = [0, -1]");
      expect(pipelineError(simpleCompute("[0, 1]", `["a", 1]`))).toContain(`software_pipeline_order = ["a", 1]`);
    });

    test("one stage and one order per statement", () => {
      expect(pipelineError(simpleCompute("[0, 1, 1]", "[0, 1]"))).toBe(
        "injectSoftwarePipeline: loop i has software_pipeline_stage = [0, 1, 1] with 3 entries, but its body has 2 statements to pipeline (one entry per statement)",
      );
      expect(pipelineError(simpleCompute("[0, 1]", "[0]"))).toContain("software_pipeline_order = [0] with 1 entry, but its body has 2 statements");
    });

    test("an order that is not a permutation (TVM's conflicting order)", () => {
      expect(pipelineError(threeStageCompute("[0, 1, 1]", "[0, 1, 1]"))).toBe(
        "injectSoftwarePipeline: loop i has software_pipeline_order = [0, 1, 1], which is not a permutation of 0..2: each statement needs its own position in the pipelined body",
      );
    });

    test("a consumer in an earlier stage than its producer", () => {
      expect(pipelineError(simpleCompute("[1, 0]", "[0, 1]"))).toBe(
        "injectSoftwarePipeline: loop i cannot be pipelined as annotated: statement 1 (stage 0) reads B, which statement 0 (stage 1) " +
          "writes in the same iteration, but the pipeline would run it first (a statement that depends on another cannot be in an " +
          "earlier stage, nor before it in software_pipeline_order within one stage)",
      );
    });

    test("a consumer ordered before its producer within one stage (TVM's incorrect reorder)", () => {
      expect(pipelineError(threeStageCompute("[0, 1, 1]", "[0, 2, 1]"))).toContain(
        "statement 2 (stage 1) reads C, which statement 1 (stage 1) writes in the same iteration, but the pipeline would run it first",
      );
    });

    test("a buffer allocated outside the loop cannot get versions: the next iteration's write would overtake the read", () => {
      const src = `
        @T.prim_func
        def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                with T.block():
                    B = T.alloc_buffer((16, 1), scope="shared")
                    for i in T.serial(16, ${annotation("[0, 1]", "[0, 1]")}):
                        B[tx, 0] = A[tx, i] * T.float32(2)
                        C[tx, i] = B[tx, 0] + T.float32(1)`;
      expect(pipelineError(src)).toBe(
        "injectSoftwarePipeline: loop i cannot be pipelined as annotated: statement 0 (stage 0) writes B, which statement 1 (stage 1) " +
          "reads 1 iteration earlier, but the pipeline would run it first (B is allocated outside the loop, so it cannot get one " +
          "version per iteration in flight; put statement 0 in a later stage or after the other statement in the order)",
      );
    });

    test("a thread-bound loop", () => {
      const src = simpleCompute("[0, 1]", "[0, 1]").replace(
        `for tx in T.thread_binding(16, thread="threadIdx.x"):`,
        `for tx in T.thread_binding(16, thread="threadIdx.x", ${annotation("[0]", "[0]")}):`,
      );
      expect(pipelineError(src)).toBe("injectSoftwarePipeline: loop tx is bound to threadIdx.x; only serial loops can be software-pipelined");
    });

    test("a body block with a predicate", () => {
      const src = simpleCompute("[0, 1]", "[0, 1]").replace(
        `B = T.alloc_buffer((16, 1), scope="shared")`,
        `T.where(tx < 8)\n                    B = T.alloc_buffer((16, 1), scope="shared")`,
      );
      expect(pipelineError(src)).toContain(
        `loop i cannot be pipelined: its body is block "", which has a predicate; pipelining would run the predicate's statements at other iterations`,
      );
    });

    test("async stages: a stage no statement has, a copy into storage outside the loop, a consumer of two async stages", () => {
      expect(pipelineError(simpleCompute("[0, 1]", "[0, 1]", `, "software_pipeline_async_stages": [2]`))).toBe(
        "injectSoftwarePipeline: loop i has software_pipeline_async_stages naming stage 2, but no statement is in stage 2",
      );
      expect(pipelineError(simpleCompute("[0, 1]", "[0, 1]", `, "software_pipeline_async_stages": [1]`))).toBe(
        "injectSoftwarePipeline: loop i cannot run statement 1 (stage 1) asynchronously: it writes C, which is allocated outside the loop, where nothing waits for the copy to complete",
      );
      const twoProducers = `
        @T.prim_func
        def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for i in T.serial(16, ${annotation("[0, 1, 2]", "[0, 1, 2]", `, "software_pipeline_async_stages": [0, 1]`)}):
                    with T.block():
                        X = T.alloc_buffer((16, 1), scope="shared")
                        Y = T.alloc_buffer((16, 1), scope="shared")
                        X[tx, 0] = A[tx, i]
                        Y[tx, 0] = A[tx, i] * T.float32(2)
                        C[tx, i] = X[tx, 0] + Y[tx, 0]`;
      expect(pipelineError(twoProducers)).toBe(
        "injectSoftwarePipeline: loop i: statement 2 (stage 2) reads buffers written by async stages 0 and 1; a statement may depend on one async stage only",
      );
    });

    test("an inner pipeline's prologue, body and epilogue count as statements of the outer loop", () => {
      const src = `
        @T.prim_func
        def main(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for i in T.serial(16, ${annotation("[0, 1]", "[0, 1]")}):
                    with T.block():
                        S = T.alloc_buffer((16, 1), scope="shared")
                        S[tx, 0] = A[tx, i]
                        for j in T.serial(4, ${annotation("[0, 1]", "[0, 1]")}):
                            with T.block():
                                L = T.alloc_buffer((1,), scope="local")
                                L[0] = S[tx, 0] * T.float32(j)
                                C[tx, i] = C[tx, i] + L[0]`;
      expect(pipelineError(src)).toBe(
        "injectSoftwarePipeline: loop i has software_pipeline_stage = [0, 1] with 2 entries, but its body has 4 statements to " +
          "pipeline (one entry per statement; the statements of 1 nested block without predicate count one by one, as in TVM " +
          "(an inner pipeline's prologue, body and epilogue are three statements))",
      );
      const nested = parse(src.replace(annotation("[0, 1]", "[0, 1]"), annotation("[0, 1, 1, 1]", "[0, 1, 2, 3]")));
      expectSameResults(injectSoftwarePipeline(nested), nested, 4);
    });

    test("through lower(): a schedule whose compute is staged before the fetch", () => {
      const err = errorOf(() => lower(pipelinedGemmSchedule(128, { stages: [1, 0, 0], order: [0, 1, 2] }), "nvidia/h100"), LoweringError);
      expect(err.message).toContain(
        `loop k_0 cannot be pipelined as annotated: statement 2 ("gemm", stage 0) reads A_shared, which statement 0 ("A_shared", stage 1) writes in the same iteration`,
      );
    });
  });
});

describe("injectSoftwarePipeline with a trip count known only at run time", () => {
  const dynamic = (trips: number, stages: string) => `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
    n: T.int32 = ${trips}
    for i in T.serial(n, annotations={"software_pipeline_stage": ${stages}, "software_pipeline_order": [0, 1]}):
        with T.block(""):
            B = T.alloc_buffer((1,), scope="shared")
            with T.block(""):
                B[0] = A[i] * T.float32(2)
            with T.block(""):
                C[i] = B[0] + T.float32(1)
`;

  test("property: prologue, body and epilogue guarded by the symbolic extent compute what the loop did", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 }), fc.constantFrom("[0, 1]", "[0, 2]", "[0, 3]"), fc.integer({ min: 0, max: 99 }), (trips, stages, seed) => {
        const before = parsePrimFunc(dynamic(trips, stages));
        const after = injectSoftwarePipeline(before);
        expect(printTVMScript(after)).toMatch(/B = T\.alloc_buffer\(\([2-4], 1\)/);
        expectSameResults(after, before, seed);
      }),
      { numRuns: 30 },
    );
  });
});

describe("injectSoftwarePipeline's bounds checks and regions in TVM's forms", () => {
  /** Three chained statements over `extent` iterations, or over `n`, a let-bound trip count the pass cannot see, where `symbolic`. */
  const chain = (extent: number, stages: string, symbolic = false) => `
@T.prim_func
def main(A: T.Buffer((8,), "float32"), E: T.Buffer((8,), "float32")):
    n: T.int32 = ${extent}
    for i in T.serial(${symbolic ? "n" : extent}, annotations={"software_pipeline_stage": ${stages}, "software_pipeline_order": [0, 1, 2]}):
        with T.block(""):
            B = T.alloc_buffer((1,), scope="shared")
            C = T.alloc_buffer((1,), scope="shared")
            with T.block(""):
                B[0] = A[i] + T.float32(1)
            with T.block(""):
                C[0] = B[0] * T.float32(3)
            with T.block(""):
                E[i] = C[0] - T.float32(2)
`;

  test("the last prologue iteration's check is an equality; tvmGuards: false (the lowering pipeline) keeps the plain bound", () => {
    const before = parsePrimFunc(chain(6, "[0, 1, 2]"));
    const tvm = printTVMScript(injectSoftwarePipeline(before));
    const plain = printTVMScript(injectSoftwarePipeline(before, { tvmGuards: false }));
    expect(tvm).toContain("T.where(i == 1)");
    expect(plain).toContain("T.where(1 <= i)");
    expect(plain.replaceAll("T.where(1 <= i)", "T.where(i == 1)")).toBe(tvm);
  });

  test("a symbolic trip count: checks of the epilogue are stated on i + n; with TVM's simplifier after it (as TVM's tests run it) the regions read max(2, n)", () => {
    // `n` a parameter here: the simplifier would see the let's value.
    const src = chain(6, "[0, 1, 2]", true).replace("    n: T.int32 = 6\n", "").replace('"float32")):', '"float32"), n: T.int32):');
    const out = printTVMScript(simplifyFunc(injectSoftwarePipeline(parsePrimFunc(src)), { tvmSimplifier: true }));
    expect(out).toContain("T.reads(A[0:T.max(2, n)])");
    expect(out).toContain("T.writes(E[T.min(0, n - 2):T.min(0, n - 2) + T.max(n, 2)])");
    expect(out).toContain("T.where(i == 1 and i <= n)");
    expect(out).toContain("T.where(2 <= i + n and 2 <= i + n)");
    expect(out).toContain("T.where(1 <= i + n and i + n == n and 2 <= i + n)");
  });

  test("property: with either form of checks, any extent and stages, the pipelined chain computes what the loop did", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom("[0, 1, 2]", "[0, 0, 2]", "[0, 2, 3]", "[0, 1, 1]"),
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 0, max: 99 }),
        (extent, stages, symbolic, tvmGuards, seed) => {
          const before = parsePrimFunc(chain(extent, stages, symbolic));
          expectSameResults(injectSoftwarePipeline(before, { tvmGuards }), before, seed);
        },
      ),
      { numRuns: 60 },
    );
  });
});
