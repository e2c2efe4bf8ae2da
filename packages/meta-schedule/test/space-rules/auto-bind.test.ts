import fc from "fast-check";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { autoBind } from "../../src/rules/auto-bind.js";
import { applyRules, contextOf, elementwiseChain, rowSum, simulateAgainstReference } from "./helpers.js";

function threadTags(script: string): string[] {
  return [...script.matchAll(/thread="([^"]+)"/g)].map((m) => m[1]!);
}

describe("autoBind", () => {
  it("binds each unbound block's fused spatial loops to blockIdx.x and a sampled threadIdx.x", () => {
    const func = elementwiseChain([16, 24]);
    const [sch] = applyRules(contextOf(func), [autoBind()]);
    expect(threadTags(sch!.script())).toEqual(["blockIdx.x", "threadIdx.x", "blockIdx.x", "threadIdx.x"]);
    const samples = sch!.trace.instructions.filter((i) => i.kind.name === "SampleCategorical");
    expect(samples).toHaveLength(2);
    // 16·24 = 384 iterations: the candidates up to 384 are 32…256.
    expect(samples[0]!.attrs[0]).toEqual([32, 64, 128, 256]);
    expect(sch!.trace.instructions.map((i) => i.kind.name)).toContain("Fuse");
  });

  it("binds only the spatial loops of a reduction (the reduce loop stays serial inside each thread)", () => {
    const func = rowSum(40, 8);
    const [sch] = applyRules(contextOf(func), [autoBind({ threadExtents: [32] })]);
    const script = sch!.script();
    expect(threadTags(script)).toEqual(["blockIdx.x", "threadIdx.x"]);
    expect(script).toMatch(/for k in range\(8\)/);
    // One candidate fits: the factor is a constant, nothing is sampled.
    expect(sch!.trace.instructions.some((i) => i.kind.name === "SampleCategorical")).toBe(false);
  });

  it("leaves the root, and a block whose outer loop is a reduction, unchanged", () => {
    const func = rowSum(8, 64);
    const ctx = contextOf(func);
    const sch = new Schedule(func, { seed: 1 });
    const block = sch.getBlock("B");
    const [i, k] = sch.getLoops(block);
    sch.reorder(k, i);
    const before = sch.script();
    const rule = autoBind();
    expect(rule.apply(sch, sch.getBlock("root"), ctx)).toEqual([sch]);
    expect(rule.apply(sch, block, ctx)).toEqual([sch]);
    expect(sch.script()).toBe(before);
  });

  it("rejects bad options with the option's name", () => {
    expect(() => autoBind({ threadExtents: [] })).toThrow(/autoBind: threadExtents must not be empty/);
    expect(() => autoBind({ threadExtents: [32, 0] })).toThrow(/autoBind: threadExtents must hold positive integers, got 0/);
  });

  it("property: random samples lower, and simulate equal to the sequential executor", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<readonly number[]>([7, 13], [33, 5], [64, 3], [300]),
        fc.boolean(),
        fc.integer({ min: 0, max: 1_000_000 }),
        (shape, reduction, seed) => {
          const func = reduction ? rowSum(shape[0]!, shape[1] ?? 4) : elementwiseChain(shape);
          const [sch] = applyRules(contextOf(func, seed), [autoBind()], seed);
          const report = simulateAgainstReference(sch!, func, seed);
          expect(report.simulation.kernels.length).toBe(reduction ? 1 : 2);
          expect(report.passed).toBe(true);
        },
      ),
      { numRuns: 12 },
    );
  });
});
