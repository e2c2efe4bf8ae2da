import { Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { autoBind } from "../../src/rules/auto-bind.js";
import { CROSS_THREAD_REDUCTION_EXTENTS, crossThreadReduction } from "../../src/rules/cross-thread-reduction.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import {
  applyRules,
  contextOf,
  elementwiseChain,
  kinds,
  matmulFunc,
  planeSum,
  rowMaxShift,
  rowSum,
  expectSameNumbersRacingOnlyOnGlobalMemory,
  simulateAgainstReference,
  threadTags,
} from "./helpers.js";

describe("crossThreadReduction", () => {
  it("returns the variant first and the input unchanged second", () => {
    const func = rowSum(4, 128);
    const ctx = contextOf(func);
    const sch = new Schedule(func, { seed: 3 });
    const block = sch.getBlock("B");
    const before = sch.script();
    const out = crossThreadReduction().apply(sch, block, ctx);
    expect(out).toHaveLength(2);
    expect(out[1]).toBe(sch);
    expect(sch.script()).toBe(before);
    const variant = out[0]!;
    expect(kinds(variant).slice(-5)).toEqual(["GetConsumers", "SampleCategorical", "GetLoops", "Split", "Bind"]);
    const sample = variant.trace.instructions.find((i) => i.kind.name === "SampleCategorical")!;
    expect(sample.attrs[0]).toEqual(CROSS_THREAD_REDUCTION_EXTENTS);
    expect(threadTags(variant.script())).toEqual(["threadIdx.x"]);
    expect(variant.script()).toMatch(/v_k = T\.axis\.reduce\(128, k_0 \* \d+ \+ k_1\)/);
  });

  it("fuses several reduce loops before splitting them", () => {
    const func = planeSum(2, 6, 10);
    const sch = new Schedule(func);
    const [variant] = crossThreadReduction({ threadExtents: [16] }).apply(sch, sch.getBlock("B"), contextOf(func));
    expect(kinds(variant!)).toContain("Fuse");
    expect(variant!.script()).toMatch(/for i, j_k_fused_0 in T\.grid\(2, 4\)/);
    expect(variant!.script()).toMatch(/T\.where\(j_k_fused_0 \* 16 \+ j_k_fused_1 < 60\)/);
    expect(variant!.script()).toMatch(/for j_k_fused_1 in T\.thread_binding\(16, thread="threadIdx\.x"\)/);
  });

  it("computes a fusible reduction at its consumer, in shared memory, on the consumer's threads", () => {
    const func = rowMaxShift(4, 128);
    const sch = new Schedule(func, { seed: 5 });
    const [variant] = crossThreadReduction({ threadExtents: [32] }).apply(sch, sch.getBlock("M"), contextOf(func));
    const script = variant!.script();
    expect(script).toMatch(/M = T\.alloc_buffer\(\(4,\), scope="shared"\)/);
    // M sits under C's loop i, both bind 32 threads.
    expect(script.indexOf('with T.block("M")')).toBeLessThan(script.indexOf('with T.block("C")'));
    expect(threadTags(script)).toEqual(["threadIdx.x", "threadIdx.x"]);
    expect([...script.matchAll(/T\.thread_binding\((\d+),/g)].map((m) => m[1])).toEqual(["32", "32"]);
    expect(kinds(variant!)).toEqual(expect.arrayContaining(["ComputeAt", "SetScope"]));
  });

  it("reuses the thread extent of a consumer already bound to threadIdx.x (nothing sampled)", () => {
    const func = rowMaxShift(4, 128);
    const sch = new Schedule(func, { seed: 5 });
    const [, j] = sch.getLoops(sch.getBlock("C"));
    const [, inner] = sch.split(j, [null, 64]);
    sch.bind(inner, "threadIdx.x");
    const [variant] = crossThreadReduction().apply(sch, sch.getBlock("M"), contextOf(func));
    expect(kinds(variant!)).not.toContain("SampleCategorical");
    expect([...variant!.script().matchAll(/T\.thread_binding\((\d+),/g)].map((m) => m[1])).toEqual(["64", "64"]);
  });

  it("returns the input unchanged for blocks it does not apply to", () => {
    const cases = [
      { func: rowSum(4, 16), block: "B", why: "reduction no longer than a warp" },
      { func: elementwiseChain([8, 8]), block: "B", why: "no reduction" },
      { func: matmulFunc(64, 64, 32), block: "C", why: "enough spatial parallelism for multi-level tiling" },
      { func: rowSum(4, 128), block: "root", why: "the root" },
    ];
    for (const c of cases) {
      const sch = new Schedule(c.func);
      const before = sch.script();
      const out = crossThreadReduction().apply(sch, sch.getBlock(c.block), contextOf(c.func));
      expect(out, c.why).toEqual([sch]);
      expect(sch.script(), c.why).toBe(before);
    }
  });

  // The unfused variant's threads accumulate into the output in global memory without atomics: a
  // race the simulator reports (the known gap below), and the reason the rule is not in the CUDA
  // space. Run one after another, the threads still compute the executor's numbers: this checks the
  // variant's indexing and predicates, and that its only races are on the output in global memory.
  it("property: random samples of the unfused variant (with AutoBind) replay, lower and simulate equal to the executor", () => {
    fc.assert(
      fc.property(fc.constantFrom([3, 100], [2, 64], [5, 257], [1, 48]), fc.integer({ min: 0, max: 1_000_000 }), ([rows, cols], seed) => {
        const func = rowSum(rows!, cols!);
        const ctx = contextOf(func, seed);
        const spaces = applyRules(ctx, [crossThreadReduction(), autoBind()], seed);
        expect(spaces).toHaveLength(2);
        for (const space of spaces) {
          const trace = Trace.fromJSON(JSON.stringify(space.trace.toJSON()));
          const sample = replayWithPostprocs(ctx, trace, [], { seed, freshDecisions: true });
          if (!sample.ok) throw new Error(sample.detail);
          expectSameNumbersRacingOnlyOnGlobalMemory(sample.sch, func, seed);
        }
      }),
      { numRuns: 8 },
    );
  });

  it("known gap: codegen has no cross-thread all-reduce, so the fused variant races on its shared result", () => {
    // When @tessera/codegen gains TVM's LowerCrossThreadReduction this test fails: then the rule
    // joins CUDA_EXTRA_RULES.
    const func = rowMaxShift(4, 128);
    const ctx = contextOf(func);
    const spaces = applyRules(ctx, [crossThreadReduction({ threadExtents: [8] }), autoBind()]);
    const fused = spaces.find((s) => s.script().includes('scope="shared"'))!;
    const report = simulateAgainstReference(fused, func);
    expect(report.simulation.raceCount).toBeGreaterThan(0);
    expect(report.simulation.races[0]!.message).toMatch(/write-write race on shared memory M\[0\]/);
  });
});
