import { cudaTarget, lower, target } from "@tessera/codegen";
import { FAST_PARAMS, MMA_PARAMS, WGMMA_PARAMS, fastSchedule, manualSchedule, mmaGemmSchedule, wgmmaGemmSchedule } from "@tessera/corpus";
import { add, bitwiseXor, floordiv, floormod, gemmReluAdd, mul, variable } from "@tessera/ir";
import type { Decision, Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/latency-model/expr-eval.js";
import { type KernelProfile } from "../../src/latency-model/kernel-profile.js";
import {
  L1_SHARES_DATA_PATH,
  LONE_BLOCK_BARRIER_CYCLES,
  SHARED_OVERLAP_ORDER,
  estimateKernel,
  estimateLatency,
  overlapNorm,
} from "../../src/latency-model/latency-model.js";
import { gpuSpecOf } from "../../src/latency-model/gpu-spec.js";
import { replayWithPostprocs } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { spaceOf } from "../space-gpu/helpers.js";

const h100 = target("nvidia/h100");
const spec = gpuSpecOf(h100);

/** A 2048³ gemm-like kernel profile: 512 blocks of 128 threads, 64 accumulators each. */
const base: KernelProfile = {
  name: "k",
  threadsPerBlock: 128,
  blocks: 512,
  sharedBytes: 12_528,
  fpInstructions: 131_200,
  flops: 262_400,
  tensorFlops: 0,
  tensorInstructions: 0,
  memoryInstructions: 20_000,
  globalLines: 10_000,
  sharedWavefronts: 35_000,
  idealSharedWavefronts: 35_000,
  barriers: 256,
  localElements: 80,
  largestLocalBuffer: 64,
  globalFootprintBytes: 64 << 20,
  minBlocksPerSM: undefined,
  fetchRounds: 256,
  prefetchedShare: 0,
  straightLineFp: 64,
};

const h200 = cudaTarget("nvidia/h200");

/**
 * The estimated kernel of a gemm+ReLU+add 2048³ program of the default CUDA space on the H200,
 * rebuilt from its sampling decisions in trace order (as a bench:tune report records them).
 */
function h200GemmKernel(decisions: readonly unknown[]) {
  const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func, {}, h200);
  let trace: Trace = spaces[0]!.trace;
  let next = 0;
  for (const inst of spaces[0]!.trace.instructions) {
    if (inst.kind.name === "EnterPostproc") break;
    if (inst.kind.name.startsWith("Sample")) trace = trace.withDecision(inst, decisions[next++] as Decision);
  }
  expect(next).toBe(decisions.length);
  const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
  if (!out.ok) throw new Error(out.detail);
  return estimateLatency(loweredModuleFor(out.sch.func)!).kernels[0]!;
}

describe("analytic latency model", () => {
  it("finds the fetch loop: the manual schedule waits for every k chunk, the fast one prefetches", () => {
    const manual = estimateLatency(lower(manualSchedule(2048), h100)).kernels[0]!.profile;
    const fast = estimateLatency(lower(fastSchedule(2048), h100)).kernels[0]!.profile;
    expect(manual.prefetchedShare).toBe(0);
    expect(manual.fetchRounds).toBeGreaterThan(1);
    expect(fast.prefetchedShare).toBe(1);
    // The steady-state loop of the three-stage pipeline: all chunks but the prologue's and epilogue's.
    expect(fast.fetchRounds).toBe(2048 / 8 - 2);
  });

  it("prices mma.sync kernels by tensor-core throughput: every flop counted once, no faster than the peak, faster than the fp32 SIMT gemm", () => {
    const n = 2048;
    const kernel = estimateLatency(lower(mmaGemmSchedule(n, MMA_PARAMS), h100)).kernels[0]!;
    const p = kernel.profile;
    const warps = p.blocks * Math.ceil(p.threadsPerBlock / 32);
    expect(p.tensorFlops * warps).toBe(2 * n ** 3);
    expect(p.tensorInstructions * warps).toBe((2 * n ** 3) / (2 * 16 * 8 * 16));
    // ldmatrix reads shared memory: 4 wavefronts per x4 load.
    expect(p.sharedWavefronts).toBeGreaterThan(0);
    const peakSeconds = (2 * n ** 3) / (spec.tensorFlopsPerSM * spec.smCount * spec.clockHz);
    expect(kernel.seconds).toBeGreaterThan(peakSeconds);
    const simt = estimateLatency(lower(fastSchedule(n), h100)).seconds;
    expect(kernel.seconds).toBeLessThan(simt / 2);
  });

  it("prices wgmma kernels by tensor-core throughput: a warp's quarter of each m64 tile, every flop once, faster than mma.sync (regression: a wgmma cost nothing)", () => {
    const n = 2048;
    const kernel = estimateLatency(lower(wgmmaGemmSchedule(n, WGMMA_PARAMS), h100)).kernels[0]!;
    const p = kernel.profile;
    const warps = p.blocks * Math.ceil(p.threadsPerBlock / 32);
    expect(p.tensorFlops * warps).toBe(2 * n ** 3);
    expect(p.tensorInstructions * warps).toBe((2 * n ** 3) / (2 * 16 * WGMMA_PARAMS.n * 16));
    // The operands come from shared memory: A's 16 rows and a quarter of B's 16×N per warp and k step.
    expect(p.sharedWavefronts).toBeGreaterThan(0);
    const peakSeconds = (2 * n ** 3) / (spec.tensorFlopsPerSM * spec.smCount * spec.clockHz);
    expect(kernel.seconds).toBeGreaterThan(peakSeconds);
    const mma = estimateLatency(lower(mmaGemmSchedule(n, MMA_PARAMS), h100)).seconds;
    expect(kernel.seconds).toBeLessThan(mma);
  });

  it("costs swizzled shared tiles through their XOR addresses: cp.async without the padded rows' 2-way conflicts", () => {
    const profile = (layout: { padShared: boolean; swizzle?: boolean }) =>
      estimateLatency(lower(mmaGemmSchedule(2048, { ...MMA_PARAMS, ...layout }), h100)).kernels[0]!.profile;
    const padded = profile({ padShared: true, swizzle: false });
    const swizzled = profile({ padShared: false, swizzle: true });
    // The swizzled addresses are evaluated (an unknown address would be priced as the best case).
    const x = variable("x", "int32");
    expect(evaluate(add(mul(bitwiseXor(floormod(x, 8), floordiv(x, 8)), 8), 1), new Map([[x, 11]]))).toBe((3 ^ 1) * 8 + 1);
    // ldmatrix is priced conflict-free in both; the cp.async stores decide.
    expect(swizzled.sharedWavefronts).toBe(swizzled.idealSharedWavefronts);
    expect(padded.sharedWavefronts).toBeGreaterThan(padded.idealSharedWavefronts);
    expect(swizzled.sharedWavefronts).toBeLessThan(padded.sharedWavefronts);
  });

  it("charges a reduction step left as a rolled loop (regression: an unroll budget of 512 cost nothing, measured 1.29× against 1.14× at 2048)", () => {
    const unrolled = estimateLatency(lower(fastSchedule(2048), h100)).kernels[0]!;
    const rolled = estimateLatency(lower(fastSchedule(2048, { ...FAST_PARAMS, unrollMaxStep: 64 }), h100)).kernels[0]!;
    const perRound = (k: typeof unrolled) => k.profile.fpInstructions / k.profile.fetchRounds;
    expect(unrolled.profile.straightLineFp).toBeGreaterThan(perRound(unrolled) / 2);
    expect(rolled.profile.straightLineFp).toBeLessThan(perRound(rolled) / 2);
    expect(rolled.seconds).toBeGreaterThan(unrolled.seconds * 1.05);
  });

  it("counts a register stage fetched threads inner as the thread's elements (regression: its 5×128-float hull made b128x2-il2-binner 0.76 ms against 0.32)", () => {
    // The corpus's b128x2-il2 and its twin with B fetched by consecutive threads (two float4 per
    // thread of an 8×128 chunk): the same registers, so the same estimate up to the stores' banks.
    const twoBlocks = { ...FAST_PARAMS, blockRows: 128, blockCols: 128, vthreadRows: 4, vthreadCols: 2, warpCols: 8, minBlocksPerSM: 2, laneInterleave: 2 };
    const outer = estimateLatency(lower(fastSchedule(2048, twoBlocks), h100)).kernels[0]!;
    const inner = estimateLatency(lower(fastSchedule(2048, { ...twoBlocks, bFetchOrder: "thread-inner" }), h100)).kernels[0]!;
    expect(inner.profile.localElements).toBe(outer.profile.localElements);
    expect(inner.profile.largestLocalBuffer).toBe(outer.profile.largestLocalBuffer);
    expect(inner.registersPerThread).toBe(outer.registersPerThread);
    expect(inner.seconds).toBeLessThanOrEqual(outer.seconds * 1.05);
  });

  it("gives a launch-bounded kernel the whole register budget, and fewer resident blocks for it", () => {
    const free = estimateKernel(base, spec);
    const bounded = estimateKernel({ ...base, minBlocksPerSM: 2 }, spec);
    expect(free.registersPerThread).toBe(96);
    expect(bounded.registersPerThread).toBe(255);
    expect(bounded.blocksPerSM).toBe(2);
    expect(free.blocksPerSM).toBeGreaterThan(2);
    // Unprefetched loads with fewer warps to hide them: slower (measured: 0.39 against 0.74 ms).
    expect(estimateKernel({ ...base, minBlocksPerSM: 2 }, spec).seconds).toBeGreaterThan(free.seconds * 1.3);
  });

  it("bounds a launch-bounded thread's registers by the register file's sub-partitions, as ptxas does (regression: 64 threads × 5 blocks were given 200 registers, ptxas gives 168 and spills)", () => {
    // 192 registers needed; five blocks of two warps put three warps on some sub-partition.
    const wide = { ...base, threadsPerBlock: 64, localElements: 176 };
    const five = estimateKernel({ ...wide, minBlocksPerSM: 5 }, spec);
    const four = estimateKernel({ ...wide, minBlocksPerSM: 4 }, spec);
    expect(five.registersPerThread).toBe(168);
    expect(five.spilledRegisters).toBe(24);
    expect(four.registersPerThread).toBe(255);
    expect(four.spilledRegisters).toBe(0);
    // Unbounded, 192 registers hold two warps a sub-partition: four blocks of 64 threads, not five.
    expect(estimateKernel(wide, spec).blocksPerSM).toBe(4);
  });

  it("charges registers that do not fit as spills", () => {
    const fits = estimateKernel({ ...base, localElements: 200 }, spec);
    const spills = estimateKernel({ ...base, localElements: 300 }, spec);
    expect(spills.seconds).toBeGreaterThan(fits.seconds * 1.3);
  });

  it("hides the load wait with prefetching or with enough resident warps, not otherwise", () => {
    const few = { ...base, blocks: 132, threadsPerBlock: 128 };
    expect(estimateKernel(few, spec).bound).toBe("latency");
    expect(estimateKernel({ ...few, prefetchedShare: 1 }, spec).seconds).toBeLessThan(estimateKernel(few, spec).seconds);
    // Four times the blocks, resident together: the waits overlap, so far less than four times the time.
    const many = estimateKernel({ ...few, blocks: 4 * 132 }, spec);
    expect(many.blocksPerSM).toBeGreaterThanOrEqual(4);
    expect(many.seconds).toBeLessThan(2.5 * estimateKernel(few, spec).seconds);
  });

  it("adds shared wavefronts near the issue count to the issue time when asked (order 3): a thread layout with more wavefronts per FP instruction is slower; by default (∞) the busier alone", () => {
    // A prefetching kernel with enough warps, so that the pipes decide: issue 37,800 slots a warp
    // (no global lines, which would share the wavefronts' data path: the next test).
    const busy = { ...base, prefetchedShare: 1, globalLines: 0 };
    const layout = (sharedWavefronts: number, sharedOverlapOrder?: number) =>
      estimateKernel(
        { ...busy, sharedWavefronts, idealSharedWavefronts: sharedWavefronts },
        spec,
        sharedOverlapOrder === undefined ? {} : { sharedOverlapOrder },
      );
    expect(layout(35_000, 3).bound).toBe("issue");
    expect(layout(35_000, 3).seconds).toBeGreaterThan(1.1 * layout(10_000, 3).seconds);
    // Far fewer wavefronts than issue slots hardly count; more than the issue count is the shared bound.
    expect(layout(5_000, 3).seconds).toBeLessThan(1.01 * layout(1_000, 3).seconds);
    expect(layout(80_000, 3).bound).toBe("shared");
    expect(layout(80_000, 3).seconds).toBeGreaterThan(layout(35_000, 3).seconds);
    // The default is the max: wavefronts under the issue count cost nothing, and the estimate is order ∞'s.
    expect(SHARED_OVERLAP_ORDER).toBe(Infinity);
    expect(layout(35_000).seconds).toBe(layout(10_000).seconds);
    expect(layout(35_000).seconds).toBe(layout(35_000, Infinity).seconds);
    expect(layout(80_000).seconds).toBeGreaterThan(layout(35_000).seconds);
  });

  it("charges a fetch's global lines to the shared-memory data path: A fetched down its columns is slower than along its rows (regression: estimated equal, the H200 measured 0.523 against 0.365 ms)", () => {
    // Two programs of the default CUDA space of gemm+ReLU+add 2048³ that the H200 measured (session
    // 22's polish seed 702), equal but for A's register-staged fetch: lanes reading down the
    // tile's columns (each warp access touches 32 lines of A) or along its rows (4 lines).
    const estimate = (aThreadInner: 0 | 1) => h200GemmKernel([1, 1, [16, 2], [4, 4], 0, 1, [16, 4], [2, 4], 0, 0, 1, aThreadInner, 1, 2, 1, 1, 1, 1, 1, 5]);
    const columns = estimate(0);
    const rows = estimate(1);
    expect(columns.profile.sharedWavefronts).toBe(rows.profile.sharedWavefronts);
    expect(columns.profile.globalLines).toBeGreaterThan(4 * rows.profile.globalLines);
    expect(L1_SHARES_DATA_PATH).toBe(true);
    // The data path is busy mostly with A's lines: the bound names the global loads.
    expect(columns.bound).toBe("global");
    expect(rows.bound).toBe("issue");
    expect(columns.seconds).toBeGreaterThan(1.3 * rows.seconds);
    // Without the shared data path the lines hid behind the issue slots: the two were one estimate.
    const apart = (k: typeof rows) => estimateKernel(k.profile, gpuSpecOf(h200), { l1SharesDataPath: false }).seconds;
    expect(apart(columns)).toBe(apart(rows));
    expect(apart(rows)).toBe(rows.seconds);
  });

  it("stalls a block alone on its SM at each barrier when asked: one block of 8 warps is then slower than two of 4 with the same work (the H200 measured 0.409 against 0.353 ms; by default estimated faster)", () => {
    // Two programs of the default CUDA space of gemm+ReLU+add 2048³ that the H200 measured: 128
    // blocks of 256 threads, one resident per SM (session 19's seed 211: 0.4091 ms, 1.198× cuBLAS),
    // and 256 blocks of 128 threads, two resident per SM (session 22's seed 702: 0.3533 ms, 1.036×);
    // 128 accumulators a thread in both.
    const alone = h200GemmKernel([1, 2, [16, 1], [2, 8], 1, 2, [8, 2], [8, 2], 0, 2, 1, 1, 1, 2, 1, 1, 1, 1, 0, 5]);
    const paired = h200GemmKernel([0, 1, [16, 4], [1, 8], 1, 1, [16, 2], [4, 4], 0, 2, 1, 1, 1, 2, 1, 1, 1, 1, 1, 5]);
    expect([alone.profile.blocks, alone.profile.threadsPerBlock, alone.blocksPerSM]).toEqual([128, 256, 1]);
    expect([paired.profile.blocks, paired.profile.threadsPerBlock, paired.blocksPerSM]).toEqual([256, 128, 2]);
    expect(alone.profile.barriers).toBeGreaterThan(200);
    const stalled = (k: typeof alone) => estimateKernel(k.profile, gpuSpecOf(h200), { loneBlockBarrierCycles: 100 }).seconds;
    expect(stalled(alone)).toBeGreaterThan(stalled(paired));
    // By default (no stall, the GPU's verdict) the lone block's fewer memory instructions make it the faster estimate.
    expect(LONE_BLOCK_BARRIER_CYCLES).toBe(0);
    expect(alone.seconds).toBeLessThan(paired.seconds);
    // Two resident blocks hide each other's barriers: the paired kernel's estimate has no stall in it.
    expect(stalled(paired)).toBe(paired.seconds);
    // The stall is per barrier: its share of the lone kernel's time is the barriers' cycles.
    const cycles = ((stalled(alone) - alone.seconds) * gpuSpecOf(h200).clockHz) / alone.profile.barriers;
    expect(cycles).toBeGreaterThan(99.99);
    expect(cycles).toBeLessThan(120);
  });

  it("combines two costs by a norm whose order ∞ is the larger and 1 the sum, and refuses an order below 1", () => {
    expect(overlapNorm(3, 4, Infinity)).toBe(4);
    expect(overlapNorm(3, 4, 1)).toBeCloseTo(7, 12);
    expect(overlapNorm(3, 4, 2)).toBeCloseTo(5, 12);
    expect(overlapNorm(0, 0, SHARED_OVERLAP_ORDER)).toBe(0);
    expect(overlapNorm(0, 0, 3)).toBe(0);
    expect(overlapNorm(1e300, 1e300, 3) / 1e300).toBeCloseTo(2 ** (1 / 3), 12);
    expect(() => overlapNorm(1, 2, 0.5)).toThrow(/order must be at least 1, got 0.5/);
    expect(() => overlapNorm(1, 2, Number.NaN)).toThrow(/got NaN/);
  });
});
