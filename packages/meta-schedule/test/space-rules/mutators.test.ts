import { RandomEngine, Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mutateComputeLocation } from "../../src/mutator/mutate-compute-location.js";
import { fusedLoopCounts, mutateParallel, parallelExtentProducts } from "../../src/mutator/mutate-parallel.js";
import { mutateThreadBinding } from "../../src/mutator/mutate-thread-binding.js";
import { mutateUnroll } from "../../src/mutator/mutate-unroll.js";
import { rewriteUnboundBlock } from "../../src/postproc/rewrite-unbound-block.js";
import { autoBind } from "../../src/rules/auto-bind.js";
import { crossThreadReduction } from "../../src/rules/cross-thread-reduction.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { applyRules, contextOf, elementwiseChain, execute, matmulFunc, rowMaxShift, rowSum, expectSameNumbersRacingOnlyOnGlobalMemory } from "./helpers.js";

function decisionsOf(trace: Trace, kind: string): unknown[] {
  return trace.instructions.filter((i) => i.kind.name === kind).map((i) => trace.getDecision(i));
}

/** A schedule of `func` whose root carries a sampled unroll step. */
function unrollTrace(func = rowSum(4, 8), probs = [0.25, 0.25, 0.25, 0.25]): Trace {
  const sch = new Schedule(func, { seed: 2 });
  const step = sch.sampleCategorical([0, 16, 64, 512], probs);
  sch.annotate(sch.getBlock("root"), "meta_schedule.unroll_explicit", step);
  sch.enterPostproc();
  sch.parallel(sch.getLoops(sch.getBlock("B"))[0]);
  return sch.trace;
}

describe("mutateUnroll", () => {
  it("re-draws the unroll step to another candidate and drops the postprocessing", () => {
    const trace = unrollTrace();
    const [before] = decisionsOf(trace, "SampleCategorical");
    const ctx = contextOf(rowSum(4, 8));
    for (let seed = 0; seed < 20; seed++) {
      const mutated = mutateUnroll().apply(trace, new RandomEngine(seed), ctx)!;
      const [after] = decisionsOf(mutated, "SampleCategorical");
      expect(after).not.toBe(before);
      expect(mutated.instructions.map((i) => i.kind.name)).not.toContain("EnterPostproc");
      const replayed = replayWithPostprocs(ctx, mutated, [], { seed });
      expect(replayed.ok).toBe(true);
      if (replayed.ok) expect(replayed.sch.script()).toContain(`"meta_schedule.unroll_explicit": ${[0, 16, 64, 512][after as number]}`);
    }
  });

  it("finds nothing when no other candidate has a chance, or no unroll annotation is sampled", () => {
    const ctx = contextOf(rowSum(4, 8));
    expect(mutateUnroll().apply(unrollTrace(rowSum(4, 8), [1, 0, 0, 0]), new RandomEngine(1), ctx)).toBeUndefined();
    expect(mutateUnroll().apply(new Schedule(rowSum(4, 8)).trace, new RandomEngine(1), ctx)).toBeUndefined();
  });
});

describe("mutateThreadBinding", () => {
  it("re-draws a thread extent sampled by AutoBind", () => {
    const func = elementwiseChain([16, 24]);
    const ctx = contextOf(func);
    const [space] = applyRules(ctx, [autoBind()]);
    const mutated = mutateThreadBinding().apply(space!.trace, new RandomEngine(4), ctx)!;
    const before = decisionsOf(space!.trace, "SampleCategorical");
    const after = decisionsOf(mutated, "SampleCategorical");
    expect(after.filter((d, k) => d !== before[k])).toHaveLength(1);
  });

  it("ignores categorical samples that do not feed a threadIdx.x split", () => {
    expect(mutateThreadBinding().apply(unrollTrace(), new RandomEngine(1), contextOf(rowSum(4, 8)))).toBeUndefined();
  });

  it("property: mutated AutoBind and CrossThreadReduction traces replay, lower and simulate equal to the executor (races only where the unfused variant accumulates in global memory)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          () => elementwiseChain([12, 40]),
          () => rowSum(6, 100),
        ),
        fc.integer({ min: 0, max: 1_000_000 }),
        (make, seed) => {
          const func = make();
          const ctx = contextOf(func, seed);
          const rng = new RandomEngine(seed);
          for (const space of applyRules(ctx, [crossThreadReduction(), autoBind()], seed)) {
            let trace = space.trace;
            for (let step = 0; step < 3; step++) trace = mutateThreadBinding().apply(trace, rng, ctx) ?? trace;
            const sample = replayWithPostprocs(ctx, Trace.fromJSON(JSON.stringify(trace.toJSON())), [rewriteUnboundBlock()], { seed });
            if (!sample.ok) {
              expect(sample.reason).toMatch(/\S/);
              continue;
            }
            expectSameNumbersRacingOnlyOnGlobalMemory(sample.sch, func, seed);
          }
        },
      ),
      { numRuns: 8 },
    );
  });
});

/** A schedule computing B (of B→C) at a sampled location. */
function locationTrace(func = elementwiseChain([6, 10]), decision?: number): Trace {
  const sch = new Schedule(func, { seed: 3 });
  const b = sch.getBlock("B");
  sch.computeAt(b, sch.sampleComputeLocation(b, decision));
  return sch.trace;
}

describe("mutateComputeLocation", () => {
  it("moves a block to another valid location: inline, root, or a loop of its consumer", () => {
    const func = elementwiseChain([6, 10]);
    const ctx = contextOf(func);
    const seen = new Set<unknown>();
    for (let seed = 0; seed < 30; seed++) {
      const trace = locationTrace(func, -1);
      const mutated = mutateComputeLocation().apply(trace, new RandomEngine(seed), ctx)!;
      const [after] = decisionsOf(mutated, "SampleComputeLocation");
      expect(after).not.toBe(-1);
      seen.add(after);
    }
    expect([...seen].sort()).toEqual([-2, 0, 1]);
  });

  it("finds nothing for a trace without SampleComputeLocation", () => {
    expect(mutateComputeLocation().apply(new Schedule(rowSum(2, 2)).trace, new RandomEngine(1), contextOf(rowSum(2, 2)))).toBeUndefined();
  });

  it("property: mutated locations replay to schedules the executor agrees with", () => {
    const workloads = [() => elementwiseChain([6, 10]), () => rowMaxShift(5, 7)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 1_000_000 }), (w, seed) => {
        const func = workloads[w]!();
        const ctx = contextOf(func, seed);
        const first = w === 0 ? "B" : "M";
        const sch = new Schedule(func, { seed });
        const b = sch.getBlock(first);
        sch.computeAt(b, sch.sampleComputeLocation(b));
        let trace = sch.trace;
        const rng = new RandomEngine(seed);
        for (let step = 0; step < 3; step++) trace = mutateComputeLocation().apply(trace, rng, ctx) ?? trace;
        const sample = replayWithPostprocs(ctx, trace, [], { seed });
        if (!sample.ok) throw new Error(sample.detail);
        const out = func.params.length - 1;
        expect(Array.from(execute(sample.sch.func, seed)[out]!)).toEqual(Array.from(execute(func, seed)[out]!));
      }),
      { numRuns: 15 },
    );
  });
});

describe("mutateParallel", () => {
  function parallelTrace(func = elementwiseChain([16, 24]), extent = 16): Trace {
    const sch = new Schedule(func);
    sch.annotate(sch.getBlock("root"), "meta_schedule.parallel", extent);
    return sch.trace;
  }

  it("computes TVM's plans: running products of the outer spatial loops, and the loops each extent fuses", () => {
    const prods = parallelExtentProducts(new Schedule(matmulFunc(8, 6, 5)).func.body, 1000);
    expect(prods).toEqual([[8, 48]]); // k is a reduction loop
    expect(fusedLoopCounts([[16, 384]], 16)).toEqual([1]);
    expect(fusedLoopCounts([[16, 384]], 17)).toEqual([2]);
    expect(fusedLoopCounts([[16, 384]], 384)).toEqual([2]);
    expect(fusedLoopCounts([[16, 384]], 4)).toEqual([1]);
  });

  it("changes the annotated extent to one that fuses a different number of loops", () => {
    const func = elementwiseChain([16, 24]);
    const ctx = contextOf(func);
    const mutated = mutateParallel({ numCores: 32 }).apply(parallelTrace(func, 16), new RandomEngine(1), ctx)!;
    const annotate = mutated.instructions.find((i) => i.kind.name === "Annotate")!;
    expect(annotate.inputs[1]).toBe(384);
    const replayed = replayWithPostprocs(ctx, mutated, [], { seed: 1 });
    expect(replayed.ok && replayed.sch.script()).toContain('"meta_schedule.parallel": 384');
  });

  it("property: a mutated extent replays and fuses a different number of loops than the original", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<readonly number[]>([16, 24], [3, 5, 7], [64], [2, 2, 50]),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (shape, extent, numCores, seed) => {
          const func = elementwiseChain(shape);
          const ctx = contextOf(func, seed);
          const trace = parallelTrace(func, extent);
          const mutated = mutateParallel({ numCores }).apply(trace, new RandomEngine(seed), ctx);
          if (mutated === undefined) return;
          const replayed = replayWithPostprocs(ctx, mutated, [], { seed });
          expect(replayed.ok).toBe(true);
          const prods = parallelExtentProducts(new Schedule(func).func.body, 16 * numCores);
          const now = mutated.instructions.find((i) => i.kind.name === "Annotate")!.inputs[1] as number;
          expect(now).toBeLessThanOrEqual(16 * numCores);
          expect(fusedLoopCounts(prods, now)).not.toEqual(fusedLoopCounts(prods, extent));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("finds nothing with a single plan or without the annotation, and rejects bad options", () => {
    const func = elementwiseChain([16, 24]);
    const ctx = contextOf(func);
    expect(mutateParallel({ numCores: 1 }).apply(parallelTrace(func, 16), new RandomEngine(1), ctx)).toBeUndefined();
    expect(mutateParallel({ numCores: 32 }).apply(new Schedule(func).trace, new RandomEngine(1), ctx)).toBeUndefined();
    expect(() => mutateParallel({ numCores: 0 })).toThrow(/mutateParallel: numCores must be a positive integer, got 0/);
  });
});
