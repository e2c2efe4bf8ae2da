import { Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addRFactor } from "../../src/rules/add-rfactor.js";
import { randomComputeLocation } from "../../src/rules/random-compute-location.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { applyRules, contextOf, elementwiseChain, execute, kinds, planeSum, rowMaxShift, rowSum } from "./helpers.js";

describe("addRFactor", () => {
  it("gives one rfactor space per piece of the split reduction, then the input", () => {
    const func = rowSum(4, 64);
    const sch = new Schedule(func, { seed: 2 });
    const block = sch.getBlock("B");
    const before = sch.script();
    const out = addRFactor({ numCores: 4 }).apply(sch, block, contextOf(func));
    expect(out).toHaveLength(3);
    expect(out[2]!.script()).toBe(before);
    for (const variant of out.slice(0, 2)) {
      expect(kinds(variant)).toEqual(expect.arrayContaining(["SamplePerfectTile", "Split", "RFactor", "Annotate"]));
      expect(variant.script()).toMatch(/with T\.block\("B_rf"\)/);
      expect(variant.script()).toMatch(/"meta_schedule.random_compute_producer": 1/);
    }
    expect(sch.script()).toBe(before);
  });

  it("RandomComputeLocation then places the marked block and its rfactor producer, and drops the mark", () => {
    const func = rowMaxShift(4, 30);
    const spaces = applyRules(contextOf(func), [addRFactor({ numCores: 2 }), randomComputeLocation()]);
    const factored = spaces.filter((s) => kinds(s).includes("RFactor"));
    expect(factored).toHaveLength(2);
    for (const sch of factored) {
      expect(kinds(sch).filter((k) => k === "SampleComputeLocation")).toHaveLength(2);
      expect(kinds(sch)).toContain("Unannotate");
      expect(sch.script()).not.toContain("random_compute_producer");
    }
  });

  it("returns the input unchanged for blocks it does not apply to", () => {
    for (const [func, block] of [
      [rowSum(4, 3), "B"],
      [elementwiseChain([4, 4]), "B"],
      [rowSum(4, 64), "root"],
    ] as const) {
      const sch = new Schedule(func);
      const before = sch.script();
      expect(addRFactor({ numCores: 4 }).apply(sch, sch.getBlock(block), contextOf(func))).toEqual([sch]);
      expect(sch.script()).toBe(before);
    }
    expect(() => addRFactor({ numCores: 0 })).toThrow(/addRFactor: numCores must hold positive integers, got 0/);
  });

  it("property: with RandomComputeLocation, fresh samples compute what the workload computes", () => {
    const workloads = [() => rowSum(3, 40), () => rowMaxShift(4, 30), () => planeSum(2, 6, 7)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: workloads.length - 1 }), fc.integer({ min: 0, max: 1_000_000 }), (w, seed) => {
        const func = workloads[w]!();
        const ctx = contextOf(func, seed);
        const expected = Array.from(execute(func, seed).at(-1)!);
        const spaces = applyRules(ctx, [addRFactor({ numCores: 2 }), randomComputeLocation()], seed);
        expect(spaces).toHaveLength(3);
        for (const space of spaces) {
          const sample = replayWithPostprocs(ctx, Trace.fromJSON(JSON.stringify(space.trace.toJSON())), [], { seed, freshDecisions: true });
          if (!sample.ok) throw new Error(sample.detail);
          const actual = Array.from(execute(sample.sch.func, seed).at(-1)!);
          actual.forEach((a, i) => expect(Math.abs(a - expected[i]!)).toBeLessThanOrEqual(1e-4 + 1e-4 * Math.abs(expected[i]!)));
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe("randomComputeLocation", () => {
  it("returns the input unchanged for the root, an output block, and a block sharing its outer loop", () => {
    const chain = elementwiseChain([4, 6]);
    const sch = new Schedule(chain);
    const rule = randomComputeLocation();
    const before = sch.script();
    expect(rule.apply(sch, sch.getBlock("root"), contextOf(chain))).toEqual([sch]);
    expect(rule.apply(sch, sch.getBlock("C"), contextOf(chain))).toEqual([sch]);
    expect(sch.script()).toBe(before);
    // B computed under C's outer loop: that loop has two child blocks.
    sch.computeAt(sch.getBlock("B"), sch.getLoops(sch.getBlock("C"))[0]);
    const placed = sch.script();
    expect(rule.apply(sch, sch.getBlock("B"), contextOf(chain))).toEqual([sch]);
    expect(sch.script()).toBe(placed);
  });
});
