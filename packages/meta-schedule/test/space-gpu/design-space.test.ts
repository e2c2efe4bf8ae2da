/**
 * The default CUDA design space of gemm+ReLU+add, matmul and conv2d (its trace, before any
 * decision is replayed), and PostOrderApply's traversal rules.
 */
import { conv2d, gemmReluAdd, matmul, vectorAdd } from "@tessera/ir";
import type { Schedule, Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { type ScheduleRule, SpaceGenerationError, replayWithPostprocs, tuneContext, workloadOf } from "../../src/index.js";
import { PostOrderApply } from "../../src/space/post-order-apply.js";
import { TVM_CUDA_TILING } from "../../src/rules/multi-level-tiling/index.js";
import {
  COOPERATIVE_FETCH,
  FETCH_THREAD_INNER,
  FETCH_VIA_REGISTERS,
  LAUNCH_BOUNDS,
  OPERAND_SLICES,
  SHARED_TRANSPOSE,
  SOFTWARE_PIPELINE,
  TILING_STRUCTURE,
  UNROLL_IMPLICIT,
} from "../../src/schedule-utils/annotations.js";
import { blockNamesPostOrder } from "../../src/rules/multi-level-tiling/block-query.js";
import { H100, spaceOf } from "./helpers.js";

function kinds(trace: Trace): string[] {
  return trace.instructions.map((i) => i.kind.name);
}

/** The annotation keys of the trace's Annotate instructions, in order. */
function annotationKeys(trace: Trace): string[] {
  return trace.instructions.filter((i) => i.kind.name === "Annotate").map((i) => i.attrs[0] as string);
}

function count<T>(xs: readonly T[], x: T): number {
  return xs.filter((y) => y === x).length;
}

describe("the default CUDA space of gemm+ReLU+add", () => {
  const { spaces } = spaceOf(gemmReluAdd(256).func);
  const trace = spaces[0]!.trace;

  it("is one schedule: the gemm tiled, the epilogue inlined into the write-back", () => {
    expect(spaces).toHaveLength(1);
    const sch = spaces[0]!;
    const names = blockNamesPostOrder(sch.func);
    expect(names).not.toContain("relu");
    expect(names).not.toContain("add");
    expect(names).toEqual(expect.arrayContaining(["gemm", "A_shared", "B_shared", "matmul_local"]));
    expect(sch.get(sch.getBlock("gemm")).annotations[TILING_STRUCTURE]).toBe("SSSSRRS");
    expect(count(kinds(trace), "ReverseComputeInline")).toBe(2);
  });

  it("samples threads, register tiles and the k chunk, the block/vthread and warp splits, and every knob", () => {
    // Per spatial loop: threads and registers (categorical), [block, vthread] and [thread rows…] (perfect tiles).
    const tiles = trace.instructions.filter((i) => i.kind.name === "SamplePerfectTile").map((i) => i.attrs[0]);
    expect(tiles).toEqual([2, 2, 2, 2]);
    const categoricals = trace.instructions.filter((i) => i.kind.name === "SampleCategorical").map((i) => i.attrs[0]);
    expect(categoricals.slice(0, 5)).toEqual([
      [8, 16, 32],
      [2, 4, 8],
      [8, 16, 32],
      [2, 4, 8],
      [8, 16],
    ]);
    const keys = annotationKeys(trace);
    expect(count(keys, COOPERATIVE_FETCH)).toBe(2);
    // Each fetch: whether staged through registers, and the staged fetch's thread order.
    expect(count(keys, FETCH_VIA_REGISTERS)).toBe(2);
    expect(count(keys, FETCH_THREAD_INNER)).toBe(2);
    // Only A is read across its rows (A[i, k]); B[k, j] is read along them.
    expect(count(keys, SHARED_TRANSPOSE)).toBe(1);
    for (const key of [OPERAND_SLICES, SOFTWARE_PIPELINE, LAUNCH_BOUNDS, UNROLL_IMPLICIT]) expect(count(keys, key)).toBe(1);
    expect(categoricals).toHaveLength(5 + 11);
  });

  it("binds blockIdx, the vthreads per axis and the fused thread levels", () => {
    const binds = trace.instructions.filter((i) => i.kind.name === "Bind").map((i) => i.attrs[0]);
    expect(binds).toEqual(["blockIdx.x", "vthread.y", "vthread.x", "threadIdx.x"]);
  });
});

describe("the samples of the default CUDA space at 2048³", () => {
  it("are mostly valid (threads sampled in range), where TVM's tiling rarely is", () => {
    const validOf = (opts: Parameters<typeof spaceOf>[1]) => {
      const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func, opts);
      let valid = 0;
      for (let seed = 1; seed <= 16; seed++) {
        if (replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true }).ok) valid++;
      }
      return valid;
    };
    expect(validOf({})).toBeGreaterThanOrEqual(11);
    expect(validOf({ tiling: TVM_CUDA_TILING })).toBeLessThanOrEqual(4);
  }, 60_000);
});

describe("the default CUDA space of other workloads", () => {
  it("tiles a matmul the same way", () => {
    const { spaces } = spaceOf(matmul(128, 64, 32).func);
    expect(spaces).toHaveLength(1);
    const trace = spaces[0]!.trace;
    expect(trace.instructions.filter((i) => i.kind.name === "SamplePerfectTile").map((i) => i.attrs[0])).toEqual([2, 2, 2, 2]);
    expect(count(annotationKeys(trace), COOPERATIVE_FETCH)).toBe(2);
  });

  it("tiles a conv2d over its four spatial and three reduction axes, the padding inlined into the shared copy", () => {
    const { spaces } = spaceOf(conv2d({ batch: 1, inChannels: 8, outChannels: 16, height: 14, width: 14, kernel: 3, padding: 1 }).func);
    const sch = spaces[0]!;
    const names = blockNamesPostOrder(sch.func);
    expect(names).not.toContain("PaddedX");
    expect(names).toEqual(expect.arrayContaining(["Y", "PaddedX_shared", "W_shared"]));
    // Threads per loop in a range that keeps 3 non-unit spatial loops within 64–1024 threads: 4–8 each.
    const categoricals = sch.trace.instructions.filter((i) => i.kind.name === "SampleCategorical").map((i) => i.attrs[0]);
    expect(categoricals.filter((_, k) => k < 8 && k % 2 === 0)).toEqual([[1], [4, 8], [7], [7]]);
    // The k chunks: divisors of 8 from 8, of 3 up to 16 (none from 8).
    expect(categoricals.slice(8, 11)).toEqual([[8], [1, 3], [1, 3]]);
    // W[c, ric, rkh, rkw] is read across c: it may be transposed; the padded input is not.
    expect(count(annotationKeys(sch.trace), SHARED_TRANSPOSE)).toBe(1);
    // The four vthread loops are fused into vthread.x (more axes than x, y, z).
    expect(sch.trace.instructions.filter((i) => i.kind.name === "Bind").map((i) => i.attrs[0])).toEqual(["blockIdx.x", "vthread.x", "threadIdx.x"]);
  });

  it("leaves an elementwise workload untiled: AutoBind splits its loop over blocks and a sampled number of threads", () => {
    const { spaces } = spaceOf(vectorAdd(1024).func);
    expect(spaces).toHaveLength(1);
    const trace = spaces[0]!.trace;
    expect(annotationKeys(trace)).toEqual([UNROLL_IMPLICIT]);
    expect(count(kinds(trace), "Split")).toBe(1);
    expect(count(kinds(trace), "SampleCategorical")).toBe(2); // the unroll budget and the thread extent
    const binds = trace.instructions.filter((i) => i.kind.name === "Bind").map((i) => i.attrs[0]);
    expect(binds).toEqual(["blockIdx.x", "threadIdx.x"]);
  });
});

describe("PostOrderApply", () => {
  const ctx = tuneContext(workloadOf(gemmReluAdd(64).func), H100, { seed: 3 });
  const visiting = (log: string[]): ScheduleRule => ({ name: "log", apply: (sch, block) => (log.push(sch.get(block).name), [sch]) });

  it("applies each rule to every block, the root first and producers last, rule after rule", () => {
    const log: string[] = [];
    new PostOrderApply({ rules: [visiting(log), visiting(log)], postprocs: [], mutators: [] }).generateDesignSpace(ctx);
    expect(log).toEqual(["root", "add", "relu", "gemm", "root", "add", "relu", "gemm"]);
  });

  it("goes on with every schedule a rule returns, skips vanished and custom-ruled blocks", () => {
    const log: string[] = [];
    const branch: ScheduleRule = {
      name: "branch",
      apply: (sch: Schedule, block) => {
        if (sch.get(block).name !== "add") return [sch];
        const other = sch.copy();
        other.computeInline(other.getBlock("relu"));
        sch.annotate(sch.getBlock("relu"), "schedule_rule", "custom");
        return [sch, other];
      },
    };
    const spaces = new PostOrderApply({ rules: [branch, visiting(log)], postprocs: [], mutators: [] }).generateDesignSpace(ctx);
    expect(spaces).toHaveLength(2);
    // relu is skipped in both: annotated in one schedule, inlined in the other.
    expect(log).toEqual(["root", "add", "gemm", "root", "add", "gemm"]);
  });

  it("reports a rule that fails with the rule, the block and the task", () => {
    const failing: ScheduleRule = { name: "failing", apply: (sch, block) => (sch.computeInline(block), [sch]) };
    const gen = new PostOrderApply({ rules: [failing], postprocs: [], mutators: [] });
    expect(() => gen.generateDesignSpace(ctx)).toThrow(SpaceGenerationError);
    expect(() => gen.generateDesignSpace(ctx)).toThrow(/rule failing failed on block "\w+" of main/);
  });
});
