import { te } from "@tessera/ir";
import { RandomEngine, Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { multiLevelTilingCpu } from "../../src/rules/multi-level-tiling-cpu.js";
import { mutateLayoutRewrite } from "../../src/mutator/mutate-layout-rewrite.js";
import { categoricalsFeeding } from "../../src/mutator/sampled-annotations.js";
import { LAYOUT_REWRITE } from "../../src/schedule-utils/annotations.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { isWriteCache } from "../../src/rules/tiling-cpu/write-cache.js";
import { applyRules, contextOf, elementwiseChain, execute, kinds, matmulFunc, matmulRelu, rowSum } from "./helpers.js";

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(1e-4 + 1e-4 * Math.abs(expected[i]!));
}

describe("multiLevelTilingCpu", () => {
  it("with sampleLayoutRewrite, samples which of the read-only parameters RewriteLayout packs (a mask over the parameters), and mutateLayoutRewrite re-draws it", () => {
    const func = matmulFunc(16, 12, 8);
    const spaces = applyRules(contextOf(func), [multiLevelTilingCpu({ sampleLayoutRewrite: true })]);
    expect(spaces).toHaveLength(3);
    for (const sch of spaces) {
      const knobs = categoricalsFeeding(sch.trace, new Set([LAYOUT_REWRITE]));
      // A is parameter 0 and B parameter 1: neither, A, B, both.
      expect(knobs.map((i) => i.attrs[0])).toEqual([[0, 1, 2, 3]]);
      const before = sch.trace.getDecision(knobs[0]!);
      const mutated = mutateLayoutRewrite().apply(sch.trace, new RandomEngine(5), contextOf(func));
      const after = mutated!.getDecision(categoricalsFeeding(mutated!, new Set([LAYOUT_REWRITE]))[0]!);
      expect(after).not.toBe(before);
    }
    expect(applyRules(contextOf(func), [multiLevelTilingCpu()]).every((s) => categoricalsFeeding(s.trace, new Set([LAYOUT_REWRITE])).length === 0)).toBe(true);
  });

  it("tiles a matmul SSRSRS into three design spaces: no write cache, and a global cache at levels 1 and 2", () => {
    const func = matmulFunc(16, 12, 8);
    const spaces = applyRules(contextOf(func), [multiLevelTilingCpu()]);
    expect(spaces).toHaveLength(3);
    const withCache = spaces.filter((s) => kinds(s).includes("CacheWrite"));
    expect(withCache).toHaveLength(2);
    for (const sch of spaces) {
      const samples = sch.trace.instructions.filter((i) => i.kind.name === "SamplePerfectTile");
      expect(samples.map((i) => i.attrs)).toEqual([
        [4, 64],
        [4, 64],
        [2, 64],
      ]);
      expect(sch.script()).toMatch(/"meta_schedule.tiling_structure": "SSRSRS"/);
      // Loop order S0 S1 R0 S2 R1 S3: i_0 j_0 i_1 j_1 k_0 i_2 j_2 k_1 i_3 j_3.
      const order = [...sch.script().matchAll(/for ([ijk]_\d)(?:, ([ijk]_\d))* in/g)].map((m) => m[0]);
      expect(order.join(" ")).toMatch(/i_0.*j_0.*i_1.*j_1.*k_0.*i_2.*j_2.*k_1.*i_3.*j_3/);
    }
    const levels = withCache.map((s) => s.trace.instructions.find((i) => i.kind.name === "ReverseComputeAt")!);
    expect(levels.map((i) => i.attrs)).toEqual([
      [true, -1],
      [true, -1],
    ]);
    expect(withCache[0]!.script()).toMatch(/with T\.block\("C_global"\)/);
  });

  it("uses an elementwise epilogue as the write cache: computed at levels 1 and 2, or left in place", () => {
    const func = matmulRelu(16, 12, 8);
    const sch = new Schedule(func, { seed: 4 });
    const spaces = multiLevelTilingCpu().apply(sch, sch.getBlock("C"), contextOf(func));
    expect(spaces).toHaveLength(3);
    expect(spaces.some((s) => kinds(s).includes("CacheWrite"))).toBe(false);
    const moved = spaces.map((s) => s.trace.instructions.filter((i) => i.kind.name === "ReverseComputeAt").length);
    expect(moved).toEqual([1, 1, 0]);
    // At level 1 the ReLU sits under the S0 loops i_0, j_0.
    expect(spaces[0]!.script()).toMatch(/for i_0, j_0 in T\.grid\(\d+, \d+\):\n(.*\n)*? {8}for ax0, ax1 in T\.grid/);
  });

  it("recognises write caches as TVM does: indices of the written block variables, injective and in order", () => {
    const relu = new Schedule(matmulRelu(4, 4, 4));
    expect(isWriteCache(relu.get(relu.getBlock("D")))).toBe(true);
    expect(isWriteCache(relu.get(relu.getBlock("C")))).toBe(false);
    const A = te.placeholder([4, 4], "float32", "A");
    const T = te.compute([4, 4], (i, j) => A.at(j, i), "T");
    const transposed = new Schedule(te.createPrimFunc([A, T]));
    expect(isWriteCache(transposed.get(transposed.getBlock("T")))).toBe(false);
  });

  it("returns the input unchanged for blocks without data reuse, the root and spatial blocks", () => {
    for (const [func, block] of [
      [rowSum(8, 32), "B"],
      [elementwiseChain([8, 8]), "C"],
      [matmulFunc(8, 8, 8), "root"],
    ] as const) {
      const sch = new Schedule(func);
      const before = sch.script();
      expect(multiLevelTilingCpu().apply(sch, sch.getBlock(block), contextOf(func))).toEqual([sch]);
      expect(sch.script()).toBe(before);
    }
  });

  it("rejects a bad structure or level with the option named", () => {
    expect(() => multiLevelTilingCpu({ structure: "SSXR" })).toThrow(/multiLevelTiling: structure must be made of the letters S and R/);
    expect(() => multiLevelTilingCpu({ structure: "SS" })).toThrow(/needs at least one S and one R level/);
    expect(() => multiLevelTilingCpu({ reuseWrite: { req: "must", levels: [9], scope: "global" } })).toThrow(
      /reuseWrite level 9 is beyond the 6 levels of SSRSRS/,
    );
  });

  it("property: random samples of every design space compute what the matmul computes (sequential executor)", () => {
    fc.assert(
      fc.property(fc.constantFrom([16, 12, 8], [6, 10, 15], [32, 4, 64], [1, 7, 5]), fc.integer({ min: 0, max: 1_000_000 }), ([n, m, l], seed) => {
        const func = matmulFunc(n!, m!, l!);
        const ctx = contextOf(func, seed);
        const expected = execute(func, seed)[2]!;
        for (const space of applyRules(ctx, [multiLevelTilingCpu()], seed)) {
          const sample = replayWithPostprocs(ctx, Trace.fromJSON(JSON.stringify(space.trace.toJSON())), [], { seed, freshDecisions: true });
          if (!sample.ok) throw new Error(sample.detail);
          expectClose(execute(sample.sch.func, seed)[2]!, expected);
        }
      }),
      { numRuns: 10 },
    );
  });
});
