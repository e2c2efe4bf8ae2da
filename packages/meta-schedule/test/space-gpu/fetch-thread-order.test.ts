/**
 * The sampled thread order of register-staged cooperative fetches
 * (`meta_schedule.cooperative_fetch_thread_inner`): samples of the default space with every fetch
 * staged and split threads inner simulate equal to the executor (and differ from their
 * threads-outer twins), and on the corpus's b128x2 tile — 128 threads fetching an 8×128 chunk of B
 * as float4, two per thread — the bank model sees the threads-inner shared stores conflict-free
 * where threads outermost puts a lane's two vectors 32 bytes apart (2-way conflicts).
 */
import { codegenCuda } from "@tessera/codegen";
import { type PrimFunc, gemmReluAdd, matmul, randomArgs } from "@tessera/ir";
import type { Trace } from "@tessera/schedule";
import { type BankConflictSite, compareWithReference, formatComparison, simulate } from "@tessera/simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { categoricalsFeeding } from "../../src/mutator/sampled-annotations.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { FETCH_THREAD_INNER, FETCH_VIA_REGISTERS } from "../../src/schedule-utils/annotations.js";
import { batchMatmul, spaceOf, withForcedDecisions } from "./helpers.js";

/** The trace with every fetch staged through registers and its thread order set to `inner`. */
function withStagedFetches(trace: Trace, inner: 0 | 1): Trace {
  let out = trace;
  for (const inst of categoricalsFeeding(trace, new Set([FETCH_VIA_REGISTERS])))
    out = out.withDecision(inst, (inst.attrs[0] as number[]).indexOf(1), { removePostproc: true });
  for (const inst of categoricalsFeeding(trace, new Set([FETCH_THREAD_INNER])))
    out = out.withDecision(inst, (inst.attrs[0] as number[]).indexOf(inner), { removePostproc: true });
  return out;
}

const WORKLOADS: readonly (readonly [string, PrimFunc])[] = [
  ["gemmReluAdd", gemmReluAdd(64).func],
  ["matmul", matmul(64, 32, 48).func],
  ["batchMatmul", batchMatmul(2, 32, 32, 16)],
];
const SPACES = WORKLOADS.map(([name, func]) => ({ name, func, ...spaceOf(func, { tiling: { threadExtentLow: 1 } }) }));

describe("register-staged fetches split threads inner", () => {
  it("are valid samples that simulate equal to the executor, and lower differently from threads outermost", () => {
    const tally = { simulated: 0, rejected: 0, different: 0 };
    fc.assert(
      fc.property(fc.nat(SPACES.length - 1), fc.integer({ min: 1, max: 1_000_000 }), (which, seed) => {
        const { func, ctx, gen, spaces } = SPACES[which]!;
        const sample = replayWithPostprocs(ctx, spaces[0]!.trace, [], { seed, freshDecisions: true });
        if (!sample.ok) return;
        const inner = replayWithPostprocs(ctx, withStagedFetches(sample.sch.trace, 1), gen.postprocs, { seed });
        if (!inner.ok) {
          expect(inner.reason.length).toBeGreaterThan(0);
          tally.rejected++;
          return;
        }
        const module = loweredModuleFor(inner.sch.func)!;
        const report = compareWithReference(module, func, { seed, rtol: 1e-4, atol: 1e-4 });
        expect(report.passed, formatComparison(report)).toBe(true);
        expect(report.simulation.raceCount).toBe(0);
        expect(report.simulation.uninitializedReadCount).toBe(0);
        tally.simulated++;
        const outer = replayWithPostprocs(ctx, withStagedFetches(sample.sch.trace, 0), gen.postprocs, { seed });
        if (outer.ok && codegenCuda(loweredModuleFor(outer.sch.func)!).source !== codegenCuda(module).source) tally.different++;
      }),
      { numRuns: 14, seed: 3 },
    );
    expect(tally.simulated).toBeGreaterThan(8);
    // Not vacuous: in most samples some fetch has several rounds per thread, where the order shows.
    expect(tally.different).toBeGreaterThan(6);
  }, 120_000);
});

describe("the bank model on the b128x2 tile (gemm+ReLU+add 256³)", () => {
  // 128×128 block tiles of 128 threads (4×2 virtual threads of 4×4), k chunks of 8, float4
  // fetches of both operands through registers, A transposed: the b128x2 point of the space.
  const { ctx, gen, spaces } = spaceOf(gemmReluAdd(256).func);
  const tiles = [
    [2, 4],
    [2, 4],
    [2, 2],
    [2, 8],
  ];
  /** B's register-staged fetch split threads inner (1) or outermost (0); A's outermost. */
  const bStores = (inner: 0 | 1): BankConflictSite[] => {
    const choices = [8, 4, 16, 4, 8, 4, 1, 0, 1, 4, 1, inner, 1, 1, -1, 0];
    const out = replayWithPostprocs(ctx, withForcedDecisions(spaces[0]!.trace, tiles, choices), gen.postprocs, { seed: 1 });
    if (!out.ok) throw new Error(out.detail);
    const module = loweredModuleFor(out.sch.func)!;
    expect(module.kernels[0]!.launch.block).toEqual([128, 1, 1]);
    const banks = simulate(module, randomArgs(module.source, 3), { bankConflicts: true, blocks: [[0, 0, 0]] }).bankConflicts!;
    return banks.sites.filter((s) => s.buffer === "B_shared" && s.access === "store");
  };

  it("stores B threads inner conflict-free, where threads outermost has 2-way conflicts", () => {
    const inner = bStores(1);
    const outer = bStores(0);
    expect(inner.map((s) => s.widthBytes)).toEqual(inner.map(() => 16));
    expect(outer.map((s) => s.widthBytes)).toEqual(outer.map(() => 16));
    const sum = (sites: readonly BankConflictSite[], key: "instructions" | "wavefronts" | "idealWavefronts" | "conflicts") =>
      sites.reduce((n, s) => n + s[key], 0);
    expect(sum(inner, "instructions")).toBeGreaterThan(0);
    expect(sum(inner, "instructions")).toBe(sum(outer, "instructions"));
    expect(sum(inner, "conflicts")).toBe(0);
    expect(Math.max(...inner.map((s) => s.worstWay))).toBe(1);
    expect(Math.max(...outer.map((s) => s.worstWay))).toBe(2);
    expect(sum(outer, "wavefronts")).toBe(2 * sum(inner, "wavefronts"));
  });
});
