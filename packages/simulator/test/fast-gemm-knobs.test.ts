/**
 * The fast schedule's knobs beyond FAST_PARAMS (packages/corpus/src/gemm-relu-add-fast.ts), at
 * 128³ with the corpus's small tile (64×64, 64 threads in warps of 8×4, 2×2 vthreads of 4×4),
 * lowered with the real pipeline and run in the simulator: equal to the sequential executor,
 * race-free, no uninitialised reads (a cp.async read before its wait lands nothing: the poison
 * shows), in bounds (the simulator throws otherwise); and what the bank-conflict model says of
 * the lane layout and the transposed tile's padding.
 */
import { lower } from "@tessera/codegen";
import { type FastScheduleParams, SMALL_FAST_PARAMS, asyncPipeline, fastSchedule, pipelinedGemmSchedule } from "@tessera/corpus";
import { type LoweredModule, codegenCuda } from "@tessera/codegen";
import { gemmReluAdd, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { type BankConflictReport, type SharedAccessCounts, compareWithReference, simulate } from "../src/index.js";

const N = 128;

function expectExact(module: LoweredModule, seed: number): void {
  const report = compareWithReference(module, gemmReluAdd(N).func, { seed, rtol: 1e-4, atol: 1e-4 });
  expect(report.outputs.map((o) => `${o.buffer}: ${o.mismatchCount} mismatches`)).toEqual(["D: 0 mismatches"]);
  expect(report.simulation.raceCount).toBe(0);
  expect(report.simulation.uninitializedReadCount).toBe(0);
}

function lowered(change: Partial<FastScheduleParams>): LoweredModule {
  return lower(fastSchedule(N, { ...SMALL_FAST_PARAMS, ...change }), "nvidia/h100");
}

function bankReport(module: LoweredModule): BankConflictReport {
  return simulate(module, randomArgs(module.source, 3), { bankConflicts: true, blocks: [[0, 0, 0]] }).bankConflicts!;
}

function bankCounts(module: LoweredModule): { loads: SharedAccessCounts; stores: SharedAccessCounts } {
  const banks = bankReport(module);
  return { loads: banks.loads, stores: banks.stores };
}

describe("software pipelines with the copies after the compute", () => {
  it("commit one group per chunk in the prologue and the body alike (regression: the body split A and B into two groups, so its first wait let chunk 0 fly)", () => {
    // Order: compute, A fetch, B fetch; 4 stages. The body's copies follow the compute, whose
    // reads of earlier chunks made the pipeline start a second commit group for B.
    const module = lower(pipelinedGemmSchedule(N, { stages: [0, 0, 3], order: [1, 2, 0], asyncStages: [0] }), "nvidia/h100");
    expectExact(module, 21);
    const cuda = codegenCuda(module).source;
    // One commit per chunk in the body: the wait lets the two chunks ahead fly.
    expect(cuda).toContain("tessera_cp_async_wait_group<2>();");
  }, 30_000);
});

describe("fastSchedule knobs in the simulator (128³)", () => {
  it('fetch "async": cp.async straight into shared memory, three stages, the transposed A scattered 4 bytes at a time', () => {
    const module = lowered({ fetch: "async", pipeline: asyncPipeline(3) });
    expectExact(module, 22);
    const cuda = codegenCuda(module).source;
    expect(cuda).toContain("tessera_cp_async_4(A_shared");
    expect(cuda).toContain("tessera_cp_async_16(B_shared");
    expect(cuda).not.toContain("A_local");
  }, 30_000);

  it('fetch "async", four stages in unpadded tiles, A fetched by consecutive threads, the copies after the compute', () => {
    expectExact(lowered({ fetch: "async", pipeline: { stages: [0, 0, 3], order: [1, 2, 0], asyncStages: [0] }, aPad: 0, aFetchOrder: "thread-inner" }), 23);
  }, 30_000);

  it("lanes interleaved in pairs of rows, with k chunks of 16 and unpadded A", () => {
    expectExact(lowered({ laneInterleave: 2, tileK: 16, aPad: 0 }), 24);
  }, 30_000);

  it('subTilePlacement "warp": each warp a contiguous tile (CUTLASS), lanes interleaved, with async copies', () => {
    // 64 threads in warps of 8×4: two warps side by side, each 64×32: lanes 8×4 with 2×2 sub-tiles of 4×4.
    expectExact(lowered({ subTilePlacement: "warp", laneInterleave: 2, fetch: "async", pipeline: asyncPipeline(3) }), 25);
  }, 30_000);

  it('sharedScope "shared.dyn": the tiles as slices of one dynamic allocation, four async stages of padded A fetched by consecutive threads', () => {
    const module = lowered({ sharedScope: "shared.dyn", fetch: "async", pipeline: asyncPipeline(4), aFetchOrder: "thread-inner" });
    expect(module.kernels[0]!.launch.dynamicSharedBytes).toBeGreaterThan(0);
    expectExact(module, 26);
  }, 30_000);

  it("the bank model: interleaved lanes pair up every 128-bit shared load (two half-warp phases, not four for B)", () => {
    // Warps of 8×4 threads: a quarter-warp of B reads is 4 distinct float4s (one wavefront each
    // phase, four phases); interleaved, lanes n and n^1 read the same float4 of B and n and n^2
    // the same of A, so every load runs in two phases.
    const plain = bankCounts(lowered({}));
    const interleaved = bankCounts(lowered({ laneInterleave: 2 }));
    expect(interleaved.loads.instructions).toBe(plain.loads.instructions);
    expect(interleaved.loads.conflicts).toBe(0);
    expect(interleaved.loads.wavefronts).toBe(2 * interleaved.loads.instructions);
    expect(plain.loads.wavefronts).toBeGreaterThan(interleaved.loads.wavefronts);
  }, 30_000);

  it("the bank model: the transposed A tile needs no padding when each thread fetches whole rows, and does when a warp fetches consecutive elements", () => {
    const aStoreConflicts = (change: Partial<FastScheduleParams>) =>
      bankReport(lowered(change))
        .sites.filter((site) => site.buffer === "A_shared" && site.access === "store")
        .reduce((n, site) => n + site.conflicts, 0);
    // Through registers: each thread stores its 4-float vector of A as 4 scalars into 4 rows of
    // the transposed tile; with cp.async, each 4-byte copy is one such store.
    for (const fetch of [{}, { fetch: "async", pipeline: asyncPipeline(3) }] as const) {
      expect(aStoreConflicts({ ...fetch, aPad: 0, aFetchOrder: "thread-outer" })).toBe(0);
      expect(aStoreConflicts({ ...fetch, aPad: 4, aFetchOrder: "thread-inner" })).toBe(0);
      expect(aStoreConflicts({ ...fetch, aPad: 0, aFetchOrder: "thread-inner" })).toBeGreaterThan(0);
    }
  }, 30_000);

  it("the bank model: B fetched by consecutive threads stores conflict-free where a thread's two float4 would be 32 bytes apart", () => {
    // The small tile's B chunk is 8×64 floats for 64 threads: two float4 per thread.
    const bStoreConflicts = (change: Partial<FastScheduleParams>) =>
      bankReport(lowered({ fetch: "async", pipeline: asyncPipeline(3), ...change }))
        .sites.filter((site) => site.buffer === "B_shared" && site.access === "store")
        .reduce((n, site) => n + site.conflicts, 0);
    expect(bStoreConflicts({ bFetchOrder: "thread-outer" })).toBeGreaterThan(0);
    expect(bStoreConflicts({ bFetchOrder: "thread-inner" })).toBe(0);
  }, 30_000);

  it("the bank model counts cp.async copies as shared stores where they are issued, 16 bytes wide for B", () => {
    const banks = bankReport(lowered({ fetch: "async", pipeline: asyncPipeline(3) }));
    const stores = banks.sites.filter((site) => site.access === "store").map((site) => `${site.buffer} ${site.widthBytes}`);
    expect(new Set(stores)).toEqual(new Set(["A_shared 4", "B_shared 16"]));
    // One block of 64 threads (2 warps), 16 chunks: A is 64×8 floats a chunk, 4 copies per thread;
    // B 8×64, 2 copies of 16 bytes per thread.
    const aStores = banks.sites.filter((site) => site.buffer === "A_shared" && site.access === "store");
    expect(aStores.reduce((n, site) => n + site.instructions, 0)).toBe(2 * 16 * 8);
  }, 30_000);

  it("rejects knobs that do not fit, naming them", () => {
    expect(() => fastSchedule(N, { ...SMALL_FAST_PARAMS, fetch: "async" })).toThrow(/with fetch "async" the pipelined body has 3 statements/);
    expect(() => fastSchedule(N, { ...SMALL_FAST_PARAMS, laneInterleave: 2, warpCols: 0 })).toThrow(/laneInterleave: needs warpCols/);
    expect(() => fastSchedule(N, { ...SMALL_FAST_PARAMS, laneInterleave: 3 })).toThrow(/laneInterleave/);
    expect(() => fastSchedule(N, { ...SMALL_FAST_PARAMS, aPad: -1 })).toThrow(/aPad/);
    expect(() => fastSchedule(N, { ...SMALL_FAST_PARAMS, subTilePlacement: "warp", warpCols: 0 })).toThrow(/subTilePlacement "warp": needs warpCols/);
    expect(() => asyncPipeline(1)).toThrow(/stages must be an integer ≥ 2/);
  });
});
