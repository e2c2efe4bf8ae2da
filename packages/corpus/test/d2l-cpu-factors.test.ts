/**
 * The shape-derived parameters of the d2l CPU schedules: factors divide the extents, vector tiles
 * are whole vectors where the extent allows, the parallel loop has enough iterations for the cores
 * where the loops have them, and small work stays serial.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  JOBS_PER_CORE,
  L1_DATA_BYTES,
  PARALLEL_PAYOFF,
  PARALLEL_REGION_COST_US,
  chooseConvTiles,
  chooseVectorTile,
  estimatedMicros,
  largestDivisorAtMost,
  parallelLoopCount,
  worthParallel,
} from "../src/d2l-cpu/factors.js";

const extent = fc.integer({ min: 1, max: 4096 });

describe("largestDivisorAtMost", () => {
  it("divides n, stays within the bound, and no larger divisor within the bound exists", () => {
    fc.assert(
      fc.property(extent, fc.integer({ min: 1, max: 64 }), (n, max) => {
        const d = largestDivisorAtMost(n, max);
        expect(n % d).toBe(0);
        expect(d).toBeLessThanOrEqual(max);
        for (let e = d + 1; e <= Math.min(n, max); e++) expect(n % e).not.toBe(0);
      }),
    );
  });

  it("names a bad extent", () => {
    expect(() => largestDivisorAtMost(0, 4)).toThrow(/largestDivisorAtMost: n must be a positive integer, got 0/);
    expect(() => largestDivisorAtMost(2.5, 4)).toThrow(/got 2.5/);
  });
});

describe("chooseVectorTile", () => {
  it("divides the extent; whole vectors whenever the extent is a multiple of the lanes", () => {
    fc.assert(
      fc.property(extent, fc.constantFrom(4, 8, 16), fc.integer({ min: 1, max: 4 }), (n, lanes, maxVectors) => {
        const t = chooseVectorTile(n, lanes, maxVectors);
        expect(n % t).toBe(0);
        expect(t).toBeLessThanOrEqual(lanes * maxVectors);
        if (n % lanes === 0) {
          expect(t % lanes).toBe(0);
          // the widest whole-vector tile that divides
          for (let v = t / lanes + 1; v <= maxVectors; v++) expect(n % (v * lanes)).not.toBe(0);
        }
      }),
    );
  });

  it("falls back to half vectors, then to the largest divisor up to the lanes", () => {
    expect(chooseVectorTile(64, 16)).toBe(16);
    expect(chooseVectorTile(64, 16, 2)).toBe(32);
    expect(chooseVectorTile(56, 16)).toBe(8);
    expect(chooseVectorTile(50, 16)).toBe(10);
    expect(chooseVectorTile(7, 16)).toBe(7);
  });
});

describe("parallelLoopCount", () => {
  it("fuses the fewest outer loops that give JOBS_PER_CORE × cores iterations, or all when none do", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 128 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 64 }), (extents, cores) => {
        const k = parallelLoopCount(extents, cores);
        expect(k).toBeGreaterThanOrEqual(1);
        expect(k).toBeLessThanOrEqual(extents.length);
        const product = (m: number): number => extents.slice(0, m).reduce((a, b) => a * b, 1);
        if (product(extents.length) >= JOBS_PER_CORE * cores) {
          expect(product(k)).toBeGreaterThanOrEqual(JOBS_PER_CORE * cores);
          if (k > 1) expect(product(k - 1)).toBeLessThan(JOBS_PER_CORE * cores);
        } else expect(k).toBe(extents.length);
      }),
    );
  });

  it("names an empty loop list or a bad extent", () => {
    expect(() => parallelLoopCount([], 2)).toThrow(/no loops/);
    expect(() => parallelLoopCount([4, 0], 2)).toThrow(/extent 1 must be a positive integer/);
  });
});

describe("worthParallel", () => {
  it("is monotone in the work and never parallel on one core", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e10, noNaN: true }),
        fc.double({ min: 0, max: 1e9, noNaN: true }),
        fc.integer({ min: 1, max: 64 }),
        (flops, bytes, cores) => {
          const w = { flops, bytes };
          if (cores === 1) expect(worthParallel(w, cores)).toBe(false);
          if (worthParallel(w, cores)) {
            expect(worthParallel({ flops: flops * 2, bytes }, cores)).toBe(true);
            expect(worthParallel({ flops, bytes: bytes * 2 }, cores)).toBe(true);
            expect(worthParallel(w, cores + 1)).toBe(true);
          }
          // the rule itself: the time saved pays PARALLEL_PAYOFF regions
          const saved = estimatedMicros(w) * (1 - 1 / cores);
          expect(worthParallel(w, cores)).toBe(cores > 1 && saved >= PARALLEL_PAYOFF * PARALLEL_REGION_COST_US);
        },
      ),
    );
  });
});

describe("chooseConvTiles", () => {
  const shape = fc
    .record({
      cin: fc.integer({ min: 1, max: 512 }),
      cout: fc.integer({ min: 1, max: 512 }),
      size: fc.integer({ min: 1, max: 256 }),
      kernel: fc.constantFrom(1, 3, 5, 7),
      pad: fc.integer({ min: 0, max: 3 }),
    })
    .filter((s) => s.size + 2 * s.pad >= s.kernel)
    .map((s) => {
      const padded = s.size + 2 * s.pad;
      const out = padded - s.kernel + 1;
      return { inChannels: s.cin, outChannels: s.cout, paddedHeight: padded, paddedWidth: padded, outHeight: out, outWidth: out, kernel: s.kernel };
    });

  it("tiles divide the output channels and width; at most 16 unrolled rows; whole vectors when the width allows", () => {
    fc.assert(
      fc.property(shape, fc.integer({ min: 1, max: 32 }), (s, cores) => {
        for (const forced of [undefined, "columns", "channels"] as const) {
          const t = chooseConvTiles(s, { cores, ...(forced === undefined ? {} : { vectorized: forced }) });
          if (forced !== undefined) expect(t.vectorized).toBe(forced);
          expect(s.outChannels % t.ocTile).toBe(0);
          expect(s.outWidth % t.owTile).toBe(0);
          expect(t.ocTile).toBeLessThanOrEqual(16);
          expect(t.owTile).toBeLessThanOrEqual(16);
          // the vectorized dimension is whole vectors whenever its extent allows
          if (t.vectorized === "columns" && s.outWidth % 16 === 0) expect(t.owTile).toBe(16);
          if (t.vectorized === "channels" && s.outChannels % 16 === 0) expect(t.ocTile).toBe(16);
          // packing only chosen when the channels fill whole vectors and the weight block outgrows L1 twice
          if (forced === undefined && t.vectorized === "channels") {
            expect(s.outChannels % 16).toBe(0);
            expect(4 * 16 * s.inChannels * s.kernel * s.kernel).toBeGreaterThan(2 * L1_DATA_BYTES);
          }
          if (cores === 1) expect(t.parallel || t.parallelPadding || t.parallelPacking).toBe(false);
        }
      }),
    );
  });

  it("the benchmark's sizes on 2 cores: 16×16 tiles; 16 channels serial, 32 and more parallel; packed weights at 256", () => {
    const conv = (c: number) =>
      chooseConvTiles({ inChannels: c, outChannels: c, paddedHeight: 66, paddedWidth: 66, outHeight: 64, outWidth: 64, kernel: 3 }, { cores: 2 });
    expect(conv(16)).toMatchObject({ vectorized: "columns", ocTile: 16, owTile: 16, parallel: false, parallelPadding: false });
    for (const c of [32, 64, 128]) expect(conv(c)).toMatchObject({ vectorized: "columns", ocTile: 16, owTile: 16, parallel: true });
    expect(conv(256)).toMatchObject({ vectorized: "channels", ocTile: 16, owTile: 16, parallel: true });
    expect(conv(24).ocTile).toBe(12);
  });
});
