import type { PrimFunc } from "@tessera/ir";
import { RandomEngine, type Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WeightedMutator } from "../../src/interfaces/mutator.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import {
  CUDA_EXTRA_MUTATORS,
  CUDA_EXTRA_POSTPROCS,
  CUDA_EXTRA_RULES,
  defaultCpuMutators,
  defaultCpuPostprocs,
  defaultCpuRules,
} from "../../src/space/cpu-defaults.js";
import type { TuneContext } from "../../src/tune-context.js";
import { applyRules, contextOf, elementwiseChain, execute, kinds, matmulRelu, rowMaxShift, rowSum, simulateAgainstReference } from "./helpers.js";

function outputOf(func: PrimFunc, seed: number): number[] {
  return Array.from(execute(func, seed).at(-1)!);
}

function expectClose(actual: readonly number[], expected: readonly number[]): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => expect(Math.abs(a - expected[i]!)).toBeLessThanOrEqual(1e-4 + 1e-4 * Math.abs(expected[i]!)));
}

function chooseMutator(mutators: readonly WeightedMutator[], rng: RandomEngine): WeightedMutator {
  const total = mutators.reduce((s, m) => s + m.probability, 0);
  let x = rng.uniform() * total;
  for (const m of mutators) if ((x -= m.probability) < 0) return m;
  return mutators.at(-1)!;
}

function mutateSome(trace: Trace, mutators: readonly WeightedMutator[], rng: RandomEngine, ctx: TuneContext, steps: number): Trace {
  let current = trace;
  for (let k = 0; k < steps; k++) current = chooseMutator(mutators, rng).mutator.apply(current, rng, ctx) ?? current;
  return current;
}

describe("the default CPU space", () => {
  it("tiles the matmul (three write-reuse variants), parallelizes/vectorizes/unrolls it, and inlines an elementwise producer", () => {
    const mm = applyRules(contextOf(matmulRelu(8, 8, 8)), defaultCpuRules());
    expect(mm).toHaveLength(3);
    for (const space of mm) expect(kinds(space)).toEqual(expect.arrayContaining(["SamplePerfectTile", "SampleCategorical", "Annotate"]));
    const chain = applyRules(contextOf(elementwiseChain([4, 6])), defaultCpuRules());
    expect(chain).toHaveLength(1);
    expect(kinds(chain[0]!)).toContain("ComputeInline");
  });

  it("has TVM's LLVM mutator probabilities for the mutators it has, and the layout and parallel-region knobs' mutators beyond TVM", () => {
    expect(defaultCpuMutators().map((m) => [m.mutator.name, m.probability])).toEqual([
      ["mutateTileSize", 0.9],
      ["mutateComputeLocation", 0.05],
      ["mutateUnroll", 0.03],
      ["mutateParallel", 0.02],
      ["mutateLayoutRewrite", 0.05],
      ["mutateParallelRegion", 0.05],
    ]);
    expect(defaultCpuPostprocs().map((p) => p.name)).toEqual([
      "disallowDynamicLoop",
      "rewriteLayout",
      "rewriteParallelVectorizeUnroll",
      "rewriteReductionBlock",
    ]);
  });

  it("property: fresh samples, and mutations of them, compute what the workload computes (sequential executor)", () => {
    const workloads = [() => matmulRelu(12, 10, 6), () => elementwiseChain([5, 9]), () => rowMaxShift(6, 11), () => matmulRelu(1, 16, 20)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: workloads.length - 1 }), fc.integer({ min: 0, max: 1_000_000 }), (w, seed) => {
        const func = workloads[w]!();
        const ctx = contextOf(func, seed);
        const expected = outputOf(func, seed);
        const rng = new RandomEngine(seed);
        for (const space of applyRules(ctx, defaultCpuRules(), seed)) {
          const sample = replayWithPostprocs(ctx, space.trace, defaultCpuPostprocs(), { seed, freshDecisions: true });
          if (!sample.ok) {
            // A postprocessor may reject a sample (as in TVM); it says why.
            expect(sample.reason).toMatch(/\S/);
            continue;
          }
          expectClose(outputOf(sample.sch.func, seed), expected);
          const mutated = mutateSome(sample.sch.trace, defaultCpuMutators(), rng, ctx, 4);
          const replayed = replayWithPostprocs(ctx, mutated, defaultCpuPostprocs(), { seed });
          if (!replayed.ok) {
            expect(replayed.reason).toMatch(/\S/);
            continue;
          }
          expectClose(outputOf(replayed.sch.func, seed), expected);
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe("the CUDA extras", () => {
  it("carry TVM's names and probabilities", () => {
    expect(CUDA_EXTRA_RULES.map((r) => r.name)).toEqual(["autoBind"]);
    expect(CUDA_EXTRA_POSTPROCS.map((p) => p.name)).toEqual(["disallowDynamicLoop", "rewriteUnboundBlock"]);
    expect(CUDA_EXTRA_MUTATORS.map((m) => [m.mutator.name, m.probability])).toEqual([
      ["mutateUnroll", 0.08],
      ["mutateThreadBinding", 0.02],
    ]);
  });

  it("property: samples and their mutations lower and simulate equal to the executor", () => {
    const workloads = [() => elementwiseChain([7, 30]), () => rowSum(20, 9), () => rowMaxShift(3, 50)];
    fc.assert(
      fc.property(fc.integer({ min: 0, max: workloads.length - 1 }), fc.integer({ min: 0, max: 1_000_000 }), (w, seed) => {
        const func = workloads[w]!();
        const ctx = contextOf(func, seed);
        const rng = new RandomEngine(seed);
        for (const space of applyRules(ctx, CUDA_EXTRA_RULES, seed)) {
          const sample = replayWithPostprocs(ctx, space.trace, CUDA_EXTRA_POSTPROCS, { seed, freshDecisions: true });
          if (!sample.ok) {
            // A postprocessor may reject a sample (as in TVM); it says why.
            expect(sample.reason).toMatch(/\S/);
            continue;
          }
          expect(simulateAgainstReference(sample.sch, func, seed).passed).toBe(true);
          const mutated = replayWithPostprocs(ctx, mutateSome(sample.sch.trace, CUDA_EXTRA_MUTATORS, rng, ctx, 3), CUDA_EXTRA_POSTPROCS, { seed });
          if (!mutated.ok) throw new Error(mutated.detail);
          expect(simulateAgainstReference(mutated.sch, func, seed).passed).toBe(true);
        }
      }),
      { numRuns: 10 },
    );
  });
});
