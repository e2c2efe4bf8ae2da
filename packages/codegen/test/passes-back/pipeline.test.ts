import { type PrimFunc, type Stmt, forEachExpr, forEachStmt, gemmReluAdd, vectorAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import { REFERENCE_MANUAL_PARAMS, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import { describe, expect, test } from "vitest";
import { GpuVerifyError, LoweringError } from "../../src/lower/errors.js";
import { describePipeline } from "../../src/lower/describe-pipeline.js";
import { lower } from "../../src/lower/pipeline.js";
import type { DeviceKernel } from "../../src/lowered.js";
import { target } from "../../src/targets/target.js";
import { T4, errorOf, expectSameResults } from "./helpers.js";
import { barriersBetweenThreadScopes, sequentialForm } from "./sequential.js";

interface Expected {
  readonly grid: [number, number, number];
  readonly block: [number, number, number];
  readonly sharedBytes: number;
  readonly barriers: number;
  readonly params: string[];
}

const GEMM_PARAMS = ["A", "B", "C", "D"];

const CORPUS_EXPECTED: Record<string, Expected> = {
  vector_add: { grid: [8, 1, 1], block: [128, 1, 1], sharedBytes: 0, barriers: 0, params: ["A", "B", "C"] },
  window_sum: { grid: [4, 1, 1], block: [64, 1, 1], sharedBytes: 66 * 4, barriers: 1, params: ["A", "B"] },
  gemm_relu_add_naive: { grid: [2, 2, 1], block: [32, 32, 1], sharedBytes: 0, barriers: 0, params: GEMM_PARAMS },
  // 64×16 tiles of A and 16×64 of B.
  gemm_relu_add_manual: { grid: [2, 2, 1], block: [16, 16, 1], sharedBytes: 2 * 64 * 16 * 4, barriers: 2, params: GEMM_PARAMS },
  gemm_relu_add_unrolled: { grid: [2, 2, 1], block: [16, 16, 1], sharedBytes: 2 * 64 * 16 * 4, barriers: 2, params: GEMM_PARAMS },
  // Two versions of the 64×8 tile of A and of the 8×64 tile of B; one barrier in the k loop, one before the epilogue.
  gemm_relu_add_pipelined: { grid: [4, 1, 1], block: [256, 1, 1], sharedBytes: 2 * 2 * 64 * 8 * 4, barriers: 2, params: GEMM_PARAMS },
  // Two versions of the transposed 8×64 tile of A in rows padded to 68 floats (the last row
  // unpadded) and of the 8×64 tile of B; one barrier in the k loop, one in the epilogue loop.
  gemm_relu_add_fast: { grid: [4, 1, 1], block: [64, 1, 1], sharedBytes: (2 * 8 * 68 - 4 + 2 * 8 * 64) * 4, barriers: 2, params: GEMM_PARAMS },
};

function barriers(body: Stmt): number {
  let n = 0;
  forEachStmt(body, (s) => {
    if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync") n++;
  });
  return n;
}

function expectLaunch(kernel: DeviceKernel, e: Expected): void {
  expect(kernel.launch.grid).toEqual(e.grid);
  expect(kernel.launch.block).toEqual(e.block);
  expect(kernel.launch.dynamicSharedBytes).toBe(0);
  expect(kernel.sharedBytes).toBe(e.sharedBytes);
  expect(barriers(kernel.body)).toBe(e.barriers);
  expect(kernel.launch.params).toEqual(e.params.map((name) => ({ name, kind: "buffer", dtype: "float32" })));
  expect(kernel.params.map((p) => (p.kind === "buffer" ? p.source : undefined))).toEqual(e.params.map((_, index) => ({ kind: "param", index })));
}

/** The kernel computes what the unscheduled function computes (on the sequential executor). */
function expectComputesLike(kernel: DeviceKernel, original: PrimFunc): void {
  const sequential = sequentialForm(kernel);
  expect(sequential, "barriers only between threadIdx scopes").toBeDefined();
  expectSameResults(sequential!, original);
}

describe("lower (the whole pipeline)", () => {
  for (const entry of scheduleCorpus()) {
    test(`corpus ${entry.name}: one kernel with the expected launch, barriers and results`, () => {
      const m = lower(entry.build(), "nvidia/tesla-t4");
      expect(m.kernels).toHaveLength(1);
      expect(m.workspaces).toEqual([]);
      const kernel = m.kernels[0]!;
      expect(kernel.name).toBe(`${m.name}_kernel`);
      expectLaunch(kernel, CORPUS_EXPECTED[entry.name]!);
      // Barriers inside the threadIdx scope need the simulator (packages/simulator/test/corpus.test.ts).
      if (barriersBetweenThreadScopes(kernel.body)) expectComputesLike(kernel, entry.original());
    });
  }

  test("naive schedule at 256³: 8×8 blocks of 32×32 threads, no shared memory", () => {
    const m = lower(naiveSchedule(256), T4);
    expect(m.name).toBe("gemm_relu_add");
    expectLaunch(m.kernels[0]!, { grid: [8, 8, 1], block: [32, 32, 1], sharedBytes: 0, barriers: 0, params: GEMM_PARAMS });
    expectComputesLike(m.kernels[0]!, gemmReluAdd(256).func);
  });

  test("manual schedule at 256³ (64/64/64 tiles, 4×4 thread tiles): grid 4×4, block 16×16, 32 KiB shared, 2 barriers", () => {
    const m = lower(manualSchedule(256, REFERENCE_MANUAL_PARAMS), T4);
    expectLaunch(m.kernels[0]!, { grid: [4, 4, 1], block: [16, 16, 1], sharedBytes: 32768, barriers: 2, params: GEMM_PARAMS });
    expectComputesLike(m.kernels[0]!, gemmReluAdd(256).func);
  });

  test("manual schedule: the k loop holds a barrier before the shared fill and one before the compute", () => {
    const kernel = lower(manualSchedule(256), T4).kernels[0]!;
    let kLoop: Stmt | undefined;
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "For" && s.loopVar.name === "k_0") kLoop = s;
    });
    expect(kLoop !== undefined && barriers(kLoop)).toBe(2);
  });

  test("unroll pragmas on the gemm's outer loop: register tiles with constant indices, fills expanded, the k loop kept", () => {
    const entry = scheduleCorpus().find((e) => e.name === "gemm_relu_add_unrolled")!;
    const kernel = lower(entry.build(), T4).kernels[0]!;
    expect(kernel.launch.minBlocksPerSM).toBe(2);
    // Every access to a local array has a constant index, so nvcc can keep the tile in registers.
    const localIndices: string[] = [];
    const note = (buffer: { scope: string }, indices: readonly { kind: string }[]) => {
      if (buffer.scope === "local") localIndices.push(...indices.map((i) => i.kind));
    };
    forEachStmt(kernel.body, (s) => void (s.kind === "BufferStore" && note(s.buffer, s.indices)));
    forEachExpr(kernel.body, (e) => void (e.kind === "BufferLoad" && note(e.buffer, e.indices)));
    expect(localIndices.length).toBeGreaterThan(0);
    expect(new Set(localIndices)).toEqual(new Set(["IntImm"]));
    // Left as loops: the k_0 loop over shared tiles (it holds barriers) and k_1_0 (16 × 40 steps > 512).
    const loops: string[] = [];
    forEachStmt(kernel.body, (s) => void (s.kind === "For" && loops.push(`${s.loopVar.name}:${s.forKind}`)));
    expect(loops).toEqual(["k_0:serial", "k_1_0:serial"]);
    expect(barriers(kernel.body)).toBe(2);
    expectComputesLike(kernel, entry.original());
  });

  /** Vector add over 1024 elements: 4 blocks of 64 threads, 4 elements per thread in a loop of `kind`. */
  function vectorAddWithInnerLoop(kind: "vectorize" | "unroll" | "vthread"): Schedule {
    const sch = new Schedule(vectorAdd(1024).func);
    const [i] = sch.getLoops(sch.getBlock("C")) as [LoopRV];
    const [bx, tx, inner] = sch.split(i, [null, 64, 4]) as [LoopRV, LoopRV, LoopRV];
    sch.bind(bx, "blockIdx.x");
    sch.bind(tx, "threadIdx.x");
    if (kind === "vectorize") sch.vectorize(inner);
    else if (kind === "unroll") sch.unroll(inner);
    else sch.bind(inner, "vthread.x");
    return sch;
  }

  test("a vectorized inner loop becomes one float32x4 access per thread and still computes the sum", () => {
    const kernel = lower(vectorAddWithInnerLoop("vectorize"), T4).kernels[0]!;
    const dtypes = new Set<string>();
    forEachExpr(kernel.body, (e) => {
      if (e.kind === "BufferLoad") dtypes.add(e.dtype);
    });
    expect([...dtypes]).toEqual(["float32x4"]);
    expect(kernel.launch.block).toEqual([64, 1, 1]);
    expectComputesLike(kernel, vectorAdd(1024).func);
  });

  test("an unrolled inner loop is expanded into four stores", () => {
    const kernel = lower(vectorAddWithInnerLoop("unroll"), T4).kernels[0]!;
    let stores = 0;
    let loops = 0;
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "BufferStore") stores++;
      if (s.kind === "For") loops++;
    });
    expect([stores, loops]).toEqual([4, 0]);
    expectComputesLike(kernel, vectorAdd(1024).func);
  });

  test("a loop bound to vthread.x becomes one copy of the statement per virtual thread in each thread", () => {
    const kernel = lower(vectorAddWithInnerLoop("vthread"), T4).kernels[0]!;
    let stores = 0;
    let loops = 0;
    forEachStmt(kernel.body, (s) => {
      if (s.kind === "BufferStore") stores++;
      if (s.kind === "For") loops++;
    });
    expect([stores, loops]).toEqual([4, 0]);
    expect(kernel.launch.block).toEqual([64, 1, 1]);
    expectComputesLike(kernel, vectorAdd(1024).func);
  });

  test("shared memory over the target's limit is a GpuVerifyError unless the limit is overridden", () => {
    const params = { ...REFERENCE_MANUAL_PARAMS, tileK: 128 };
    const err = errorOf(() => lower(manualSchedule(256, params), "nvidia/tesla-t4"), GpuVerifyError) as GpuVerifyError;
    expect(err.violations).toEqual(["uses 65536 bytes of shared memory; nvidia/tesla-t4 allows 49152"]);
    const roomy = target("nvidia/tesla-t4", { overrides: { max_shared_memory_per_block: 65536 } });
    expect(lower(manualSchedule(256, params), roomy).kernels[0]!.sharedBytes).toBe(65536);
  });

  test("an unscheduled function is rejected: nothing is bound to GPU threads", () => {
    const err = errorOf(() => lower(gemmReluAdd(64).func, T4), LoweringError);
    expect(err.message).toBe(
      "splitHostDevice: function gemm_relu_add: no loop is bound to a GPU thread: bind the outer loops to blockIdx/threadIdx with sch.bind",
    );
  });

  test("recordStages keeps the IR after every pass, in pipeline order", () => {
    const sch = naiveSchedule(64);
    const m = lower(sch, T4, { recordStages: true });
    const names = describePipeline().map((s) => s.name);
    expect(names).toEqual([
      "lowerInitBlock",
      "planBufferAllocation",
      "markPaddingGuards",
      "convertBlocksToOpaque",
      "compactBufferAllocation",
      "dropPaddingGuards",
      "lowerMatchBuffer",
      "injectSoftwarePipeline",
      "planBufferSwizzle",
      "lowerTmaCopy",
      "lowerOpaqueBlock",
      "flattenBuffer",
      "simplify",
      "lowerWarpMemory",
      "vectorizeLoop",
      "injectVirtualThread",
      "unrollLoop",
      "threadSync",
      "injectBufferSwizzle",
      "injectPTXAsyncCopy",
      "injectWgmmaSync",
      "simplify",
      "splitHostDevice",
      "verifyGpuCode",
    ]);
    expect(m.stages.map((s) => s.pass)).toEqual(names.slice(0, -1));
    expect(m.source).toBe(sch.func);
    expect(lower(sch, T4).stages).toEqual([]);
  });
});
