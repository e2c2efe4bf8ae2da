/**
 * The tuned CPU space decides parallel or serial from the work (RewriteParallelVectorizeUnroll with
 * the d2l schedules' payoff rule): a 64³ matmul gets no parallel region on a machine where a region
 * costs 50 µs, every sample on a machine where regions are free, and 1024³ its compute nest on both.
 * Samples compute what the workload computes either way.
 */
import { target as targetOf } from "@tessera/codegen";
import type { MachineProfile } from "@tessera/corpus/d2l-cpu";
import { type PrimFunc, ops, randomArgs } from "@tessera/ir";
import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { nestWork, parallelMarginOn, parallelPayoffOn } from "../../src/postproc/parallel-payoff.js";
import { defaultCpuPostprocs, defaultCpuRules } from "../../src/space/cpu-defaults.js";
import { replayWithPostprocs } from "../../src/space/replay.js";
import { tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";
import { applyRules } from "../space-rules/helpers.js";
import { loopsOf, runOnCopies } from "./loop-helpers.js";

const machine = (parallelRegionUs: number): MachineProfile => ({
  cores: 2,
  parallelRegionUs,
  l1DataBytes: 48 * 1024,
  l2Bytes: 512 * 1024,
  simdBytes: 32,
  source: "probed",
});
const EXPENSIVE_REGIONS = machine(50);
const FREE_REGIONS = machine(0.001);

function parallelLoops(func: PrimFunc): string[] {
  return loopsOf(func)
    .filter((l) => l.kind === "parallel")
    .map((l) => l.name);
}

/** Fresh samples of every design space of the workload, through the CPU postprocessors on `profile`. */
function samples(func: PrimFunc, profile: MachineProfile, seeds: readonly number[]): PrimFunc[] {
  const ctx = tuneContext(workloadOf(func), targetOf("c"), { seed: 1, numThreads: profile.cores });
  const postprocs = defaultCpuPostprocs({ payoff: parallelPayoffOn(() => profile) });
  const out: PrimFunc[] = [];
  for (const seed of seeds)
    for (const space of applyRules(ctx, defaultCpuRules({ parallelMargin: parallelMarginOn(() => profile) }), seed)) {
      const sample = replayWithPostprocs(ctx, space.trace, postprocs, { seed, freshDecisions: true });
      if (sample.ok) out.push(sample.sch.func);
    }
  return out;
}

describe("nestWork", () => {
  it("counts a multiply-add per reduction instance and each buffer's bytes once", () => {
    const sch = new Schedule(ops.matmul(64, 32, 16).func);
    expect(nestWork(sch, [sch.getBlock("C")])).toEqual({ flops: 2 * 64 * 32 * 16, bytes: 4 * (64 * 16 + 16 * 32 + 64 * 32) });
  });
});

describe("the parallel payoff in the tuned CPU space", () => {
  const small = ops.matmul(64, 64, 64).func;

  it("a 64³ matmul gets no parallel region where a region costs 50 µs, and computes the same", () => {
    const funcs = samples(small, EXPENSIVE_REGIONS, [1, 2, 3]);
    expect(funcs.length).toBeGreaterThan(0);
    for (const f of funcs) expect(parallelLoops(f)).toEqual([]);
    // Serial instead of parallel changes no result (one sample executed: the executor is slow at 64³).
    const args = randomArgs(small, 4);
    const expected = runOnCopies(small, args)[2]!;
    const got = runOnCopies(funcs[0]!, args)[2]!;
    got.forEach((x, i) => expect(Math.abs(x - expected[i]!)).toBeLessThanOrEqual(1e-3));
  });

  it("the same samples are parallel where regions cost nothing", () => {
    const funcs = samples(small, FREE_REGIONS, [1, 2, 3]);
    expect(funcs.length).toBeGreaterThan(0);
    for (const f of funcs) expect(parallelLoops(f).length).toBeGreaterThan(0);
  });

  it("a 1024³ matmul's compute nest runs in parallel even where a region costs 50 µs", () => {
    const funcs = samples(ops.matmul(1024, 1024, 1024).func, EXPENSIVE_REGIONS, [1]);
    expect(funcs.length).toBeGreaterThan(0);
    for (const f of funcs) expect(parallelLoops(f).length).toBeGreaterThan(0);
  });
});
