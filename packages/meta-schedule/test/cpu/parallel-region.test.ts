/**
 * The sampled parallel structure of the CPU space (PARALLEL_REGION): where the largest nest's work is
 * near the parallel-payoff threshold, ParallelizeVectorizeUnroll samples serial against one parallel
 * region, the rule's answer as the prior; the prior seeds take each; both variants compute what the
 * workload computes, in the executor and compiled by the C target.
 */
import { target as targetOf } from "@tessera/codegen";
import type { MachineProfile } from "@tessera/corpus/d2l-cpu";
import { type PrimFunc, type TypedArray, ops, randomArgs } from "@tessera/ir";
import { build } from "@tessera/runtime";
import { type Instruction, Schedule, type Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { cpuMicroKernelPriors, seedsFromPriors } from "../../src/database/prior-seeds.js";
import { categoricalsFeeding } from "../../src/mutator/sampled-annotations.js";
import { nearPayoffThreshold, parallelMarginOn, parallelPayoffOn } from "../../src/postproc/parallel-payoff.js";
import { ParallelizeVectorizeUnroll } from "../../src/rules/parallelize-vectorize-unroll.js";
import { PARALLEL_REGION } from "../../src/schedule-utils/annotations.js";
import { CPU_PARALLELIZE_VECTORIZE_UNROLL, defaultCpuMutators, defaultCpuPostprocs, defaultCpuRules } from "../../src/space/cpu-defaults.js";
import { PostOrderApply } from "../../src/space/post-order-apply.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";
import { loopsOf, runOnCopies } from "./loop-helpers.js";

const CORES = 2;
/**
 * A machine on which a 32³ matmul (its 12–16 KB moved, 1.2–1.6 µs on one core by the rule's estimate,
 * half of it saved on two cores) falls short of paying for a region (4 × 0.4 µs): a margin near 0.5.
 */
const NEAR: MachineProfile = { cores: CORES, parallelRegionUs: 0.4, l1DataBytes: 48 * 1024, l2Bytes: 512 * 1024, simdBytes: 32, source: "probed" };

const KEYS = new Set([PARALLEL_REGION]);

function space(func: PrimFunc, profile: MachineProfile) {
  const ctx = tuneContext(workloadOf(func), targetOf("c"), { seed: 5, numThreads: CORES });
  const gen = new PostOrderApply({
    rules: defaultCpuRules({ parallelMargin: parallelMarginOn(() => profile) }),
    postprocs: defaultCpuPostprocs({ payoff: parallelPayoffOn(() => profile) }),
    mutators: defaultCpuMutators(),
  });
  gen.initialize(ctx);
  return { ctx, gen, traces: gen.generateDesignSpace(ctx).map((s) => s.trace) };
}

/** The root's PARALLEL_REGION categorical of a design space, if sampled. */
function regionSample(trace: Trace): Instruction | undefined {
  return categoricalsFeeding(trace, KEYS)[0];
}

function parallelLoops(func: PrimFunc): string[] {
  return loopsOf(func)
    .filter((l) => l.kind === "parallel")
    .map((l) => l.name);
}

/** The names of the loops above `block` (or its `_update`), outermost first. */
function loopsAbove(func: PrimFunc, block: string): string[] {
  const sch = new Schedule(func);
  let rv;
  try {
    rv = sch.getBlock(`${block}_update`);
  } catch {
    rv = sch.getBlock(block);
  }
  return sch.getLoops(rv).map((l) => sch.get(l).loopVar.name);
}

describe("ParallelizeVectorizeUnroll's sampled parallel structure", () => {
  const func = ops.matmul(32, 32, 32).func;

  it("is sampled only within a factor of 4 of the payoff threshold, the rule's answer first and twice as likely", () => {
    const rule = (margin: number) =>
      new ParallelizeVectorizeUnroll({ ...CPU_PARALLELIZE_VECTORIZE_UNROLL, unrollMaxSteps: [0, 16], parallelMargin: () => margin });
    const sampled = (margin: number, cores = CORES) => {
      const r = rule(margin);
      r.initialize(tuneContext(workloadOf(func), targetOf("c"), { numThreads: cores }));
      const sch = new Schedule(func, { seed: 1 });
      r.apply(sch, sch.getBlock("root"), tuneContext(workloadOf(func), targetOf("c"), { numThreads: cores }));
      const inst = regionSample(sch.trace);
      return inst === undefined ? undefined : { candidates: inst.attrs[0], probabilities: inst.attrs[1] };
    };
    expect(sampled(0.82)).toEqual({ candidates: [0, 1], probabilities: [2 / 3, 1 - 2 / 3] });
    expect(sampled(2)).toEqual({ candidates: [1, 0], probabilities: [2 / 3, 1 - 2 / 3] });
    expect(sampled(0.25)).toBeDefined();
    expect(sampled(0.2)).toBeUndefined();
    expect(sampled(4)).toBeUndefined();
    expect(sampled(50)).toBeUndefined();
    expect(sampled(0.82, 1)).toBeUndefined();
    expect(nearPayoffThreshold(0)).toBe(false);
  });

  it("is in every design space of a 32³ matmul on a machine where the margin is near 0.5, and in none where regions cost 50 µs", () => {
    expect(space(func, NEAR).traces.every((t) => regionSample(t) !== undefined)).toBe(true);
    expect(space(func, { ...NEAR, parallelRegionUs: 50 }).traces.some((t) => regionSample(t) !== undefined)).toBe(false);
  });

  it("the prior seeds take the rule's answer (serial) and the other (one region around the compute nest)", () => {
    const { ctx, gen, traces } = space(func, NEAR);
    const [rule, other] = cpuMicroKernelPriors(CORES);
    for (const [prior, expectRegions] of [
      [rule!, 0],
      [other!, 1],
    ] as const) {
      const seeds = seedsFromPriors(ctx.workload, traces, traces.length, [prior]);
      expect(seeds).toHaveLength(traces.length);
      for (const [k, seed] of seeds.entries()) {
        const out = replayWithPostprocs(ctx, seed, gen.postprocs, { seed: k });
        expect(out.ok).toBe(true);
        if (out.ok) expect(parallelLoops(out.sch.func)).toHaveLength(expectRegions);
      }
    }
  });

  it("both variants compute what the workload computes, in the executor and compiled by the C target; 1 parallelizes the compute nest only, 0 none", async () => {
    const { ctx, gen, traces } = space(func, NEAR);
    const args = randomArgs(func, 9) as TypedArray[];
    const want = runOnCopies(func, args).at(-1)!;
    const close = (got: ArrayLike<number>) => {
      for (let i = 0; i < want.length; i++) expect(Math.abs(got[i]! - want[i]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!)));
    };
    // Every design space, its operands packed (copy nests beside the compute nest), each variant.
    const packed = cpuMicroKernelPriors(CORES).find((p) => p.name.includes("operands packed"))!;
    const seeds = seedsFromPriors(ctx.workload, traces, traces.length, [packed]);
    let built = 0;
    for (const [k, seed] of seeds.entries()) {
      const inst = regionSample(seed)!;
      const candidates = inst.attrs[0] as number[];
      for (const region of [0, 1]) {
        const out = replayWithPostprocs(ctx, seed.withDecision(inst, candidates.indexOf(region)), gen.postprocs, { seed: k });
        expect(out.ok).toBe(true);
        if (!out.ok) continue;
        const f = out.sch.func;
        const parallel = parallelLoops(f);
        if (region === 0) expect(parallel).toEqual([]);
        else {
          expect(parallel).toHaveLength(1);
          expect(loopsAbove(f, "C")).toContain(parallel[0]);
        }
        close(runOnCopies(f, args).at(-1)!);
        if (k > 1) continue; // gcc for two design spaces' variants: the C target's OpenMP region and its serial twin
        const mod = await build(f, targetOf("c"));
        try {
          const copies = args.map((a) => a.slice());
          mod(...copies);
          close(copies.at(-1)!);
          built++;
        } finally {
          mod.dispose();
        }
      }
    }
    expect(built).toBe(4);
  }, 120_000);
});
