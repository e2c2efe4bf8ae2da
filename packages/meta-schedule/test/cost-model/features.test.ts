/**
 * Per-store features of real schedules: the layout is named, the corpus's naive, manual and fast
 * 2048³ gemm+ReLU+add schedules differ where their speed differs (threads, shared bytes, vector
 * widths, bank conflicts, pipelining, launch bounds, unrolling), each knob of the fast schedule
 * moves its columns, and on random samples of a gemm space the kernel-wide numbers match what
 * the tile sizes imply.
 */
import { target } from "@tessera/codegen";
import { FAST_PARAMS, type FastScheduleParams, fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import { gemmReluAdd } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PerStoreFeature, tuneContext, workloadOf } from "../../src/index.js";
import { PER_STORE_FEATURE_LENGTH, describeFeatureRow, featureNames } from "../../src/feature/feature-names.js";
import { perStoreFeatures } from "../../src/feature/per-store-feature.js";
import { sampleGemmSchedule } from "./gemm-space.js";

const N = 2048;
const column = (name: string): number => {
  const k = featureNames().indexOf(name);
  if (k < 0) throw new Error(`no feature column ${name}`);
  return k;
};
/** The inverse of slog for non-negative values. */
const unslog = (v: number): number => Math.round(2 ** v - 1);
const maxOf = (rows: readonly Float64Array[], name: string): number => Math.max(...rows.map((r) => r[column(name)]!));
const kernelValue = (rows: readonly Float64Array[], name: string): number => unslog(maxOf(rows, name));
/** The largest value of a per-buffer column over the buffers of a scope in any row. */
function bufferMax(rows: readonly Float64Array[], feature: string, scope: "global" | "shared" | "local", access?: "read" | "write"): number {
  let best = 0;
  for (const row of rows) {
    for (let b = 0; b < 5; b++) {
      if (row[column(`B${b}.scope_${scope}`)] !== 1) continue;
      if (access !== undefined && row[column(`B${b}.acc_type_${access}`)] !== 1) continue;
      best = Math.max(best, unslog(row[column(`B${b}.${feature}`)]!));
    }
  }
  return best;
}

describe("feature layout", () => {
  it("names every column once, and rows have that many columns", () => {
    const names = featureNames();
    expect(names.length).toBe(PER_STORE_FEATURE_LENGTH);
    expect(new Set(names).size).toBe(names.length);
    for (const row of perStoreFeatures(naiveSchedule(64).func)) expect(row.length).toBe(names.length);
  });

  it("prints a row by name and refuses a row of another length", () => {
    const [row] = perStoreFeatures(naiveSchedule(64).func);
    const text = describeFeatureRow(row!);
    expect(text).toMatch(/^is_gpu = 1$/m);
    expect(text).toMatch(/^threadIdx_x_len = /m);
    expect(() => describeFeatureRow(new Float64Array(3))).toThrow(/3 columns.*per-store layout has/);
  });

  it("an unscheduled function has CPU rows (is_gpu 0) and no launch extents", () => {
    const rows = perStoreFeatures(gemmReluAdd(64).func);
    expect(rows.length).toBeGreaterThanOrEqual(3);
    for (const r of rows) {
      expect(r[column("is_gpu")]).toBe(0);
      expect(r[column("kernel_threads")]).toBe(0);
    }
  });

  it("the extractor gives one matrix per candidate", () => {
    const ctx = tuneContext(workloadOf(gemmReluAdd(64).func), target("nvidia/h100"));
    const out = new PerStoreFeature().extractFrom(ctx, [
      { sch: naiveSchedule(64), argsInfo: [] },
      { sch: manualSchedule(128, { tileX: 64, tileY: 64, tileK: 16, threadTileX: 4, threadTileY: 4, threadTileK: 1 }), argsInfo: [] },
    ]);
    expect(out.map((m) => m.length)).toEqual([3, 7]);
  });
});

describe("every schedule of the corpus", () => {
  for (const entry of scheduleCorpus()) {
    it(`${entry.name}: one finite GPU row per store`, () => {
      const rows = perStoreFeatures(entry.build().func);
      expect(rows.length).toBeGreaterThan(0);
      for (const r of rows) {
        expect(r.every(Number.isFinite)).toBe(true);
        expect(r[column("is_gpu")]).toBe(1);
        expect(kernelValue([r], "kernel_threads")).toBeGreaterThan(0);
      }
    });
  }
});

describe("the corpus's 2048³ gemm+ReLU+add schedules", () => {
  const naive = perStoreFeatures(naiveSchedule(N).func);
  const manual = perStoreFeatures(manualSchedule(N).func);
  const fast = perStoreFeatures(fastSchedule(N).func);

  it("threads per block and virtual threads", () => {
    expect([naive, manual, fast].map((r) => kernelValue(r, "kernel_threads"))).toEqual([1024, 256, 256]);
    expect([naive, manual, fast].map((r) => kernelValue(r, "vthread_len"))).toEqual([1, 1, 8]);
  });

  it("shared memory per block: none, two 64×64 tiles, and the fast schedule's double-buffered padded tiles", () => {
    // fast: A 8×(256+4 pad)×4 B and B 8×128×4 B, two copies each (register-prefetch pipeline).
    expect([naive, manual, fast].map((r) => kernelValue(r, "kernel_shared_bytes"))).toEqual([0, 2 * 64 * 64 * 4, 2 * (8 * 260 + 8 * 128) * 4]);
    expect([manual, fast].map((r) => kernelValue(r, "storage_align_pad_bytes"))).toEqual([0, 2 * 8 * 4 * 4]);
  });

  it("registers per thread: 128 accumulators over 8 vthreads, the operand slices and the fetch registers", () => {
    // accumulators 128, A slice 4×4 vthread rows, B slice 4×2, A fetch 8, B fetch 4 floats.
    expect(kernelValue(fast, "kernel_local_bytes")).toBe((128 + 16 + 8 + 8 + 4) * 4);
    expect(kernelValue(manual, "kernel_local_bytes")).toBe((16 + 4 + 4) * 4);
  });

  it("vector width of global loads: 128-bit in the fast schedule, scalar in the others", () => {
    expect(bufferMax(fast, "vector_bytes", "global", "read")).toBe(16);
    expect(bufferMax(manual, "vector_bytes", "global", "read")).toBe(4);
    expect(bufferMax(naive, "vector_bytes", "global", "read")).toBe(4);
  });

  it("bank conflicts: the manual schedule's shared reads are 16-way, the fast one's are not", () => {
    expect(bufferMax(manual, "warp_transactions", "shared", "read")).toBe(16);
    // 128-bit reads: 4 phases of 8 threads, each conflict-free.
    expect(bufferMax(fast, "warp_transactions", "shared", "read")).toBe(4);
  });

  it("pipelining, launch bounds and the unroll budget appear only in the fast schedule", () => {
    expect([manual, fast].map((r) => kernelValue(r, "pipeline_stages"))).toEqual([0, 3]);
    expect([manual, fast].map((r) => kernelValue(r, "kernel_min_blocks_per_sm"))).toEqual([0, 1]);
    expect([manual, fast].map((r) => kernelValue(r, "auto_unroll_max_step"))).toEqual([0, 2048]);
    expect(maxOf(fast, "unroll_num")).toBeGreaterThan(0);
    expect(maxOf(manual, "unroll_num")).toBe(0);
  });

  it("the gemm's multiply-adds are counted once per FMA of the kernel", () => {
    for (const rows of [naive, manual, fast]) expect(kernelValue(rows, "float_mad")).toBe(N * N * N);
  });
});

describe("each knob of the fast schedule moves its columns", () => {
  const base = perStoreFeatures(fastSchedule(N).func);
  const variants: readonly [string, Partial<FastScheduleParams>, readonly string[]][] = [
    ["vector 2", { vector: 2 }, ["B0.vector_bytes"]],
    ["two blocks per SM", { minBlocksPerSM: 2 }, ["kernel_min_blocks_per_sm"]],
    ["unroll budget 16", { unrollMaxStep: 16 }, ["auto_unroll_max_step", "unroll_prod"]],
    ["no pipeline", { pipeline: null }, ["pipeline_stages", "kernel_shared_bytes"]],
    ["k chunk 16", { tileK: 16 }, ["kernel_shared_bytes"]],
    ["128-row tiles", { blockRows: 128, vthreadRows: 2 }, ["vthread_len", "blockIdx_x_len", "kernel_shared_bytes", "kernel_local_bytes"]],
    ["64-column tiles of one vthread", { blockCols: 64, vthreadCols: 1, tileK: 16 }, ["vthread_len", "blockIdx_x_len", "kernel_local_bytes"]],
    ["explicit unrolling", { unrollExplicit: true }, ["unroll_explicit"]],
  ];
  for (const [what, change, columns] of variants) {
    it(what, () => {
      const rows = perStoreFeatures(fastSchedule(N, { ...FAST_PARAMS, ...change }).func);
      for (const name of columns) {
        const k = column(name);
        const before = base.map((r) => r[k]!);
        const after = rows.map((r) => r[k]!);
        expect(after, name).not.toEqual(before);
      }
    });
  }
});

describe("property: random samples of a gemm space", () => {
  it("rows are finite, and threads, shared and register bytes match the sampled tiles", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const { sch, tiles } = sampleGemmSchedule(N, seed);
        const rows = perStoreFeatures(sch.func);
        for (const r of rows) {
          expect(r.length).toBe(PER_STORE_FEATURE_LENGTH);
          expect(r.every(Number.isFinite)).toBe(true);
        }
        const blockI = tiles.threadsI * tiles.regI;
        const blockJ = tiles.threadsJ * tiles.regJ;
        expect(kernelValue(rows, "kernel_threads")).toBe(tiles.threadsI * tiles.threadsJ);
        expect(kernelValue(rows, "kernel_shared_bytes")).toBe((blockI + blockJ) * tiles.kChunk * 4);
        expect(kernelValue(rows, "kernel_local_bytes")).toBe((tiles.regI * tiles.regJ + tiles.regI + tiles.regJ) * 4);
        expect(kernelValue(rows, "float_mad")).toBe(N * N * N);
      }),
      { numRuns: 25, seed: 11 },
    );
  });
});
