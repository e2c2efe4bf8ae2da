/**
 * MutateTileShape's joint tile moves on samples of the default CUDA space of the 2048³ GEMM:
 * moving a factor across loops keeps the threads per block, within a loop keeps the block tile,
 * and transposing exchanges the two spatial loops' tilings (twice: back where it started); on
 * TVM's perfect-tile tiling ("SSSRRSRS"), moving a factor across two loops' decisions keeps every
 * level's product over the two loops (threads, virtual threads, blocks) and each loop's extent.
 */
import { gemmReluAdd } from "@tessera/ir";
import { type Instruction, RandomEngine, type Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { MutateTileShape, perfectTileDecisions, sampledSplits, tileShapeMove } from "../../src/mutator/mutate-tile-shape.js";
import { TVM_CUDA_TILING } from "../../src/rules/multi-level-tiling/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { spaceOf } from "./helpers.js";

const { ctx, gen, spaces } = spaceOf(gemmReluAdd(2048).func);

function sampleTrace(seed: number): Trace {
  const out = replayWithPostprocs(ctx, spaces[0]!.trace, [], { seed, freshDecisions: true });
  if (!out.ok) throw new Error(out.detail);
  return out.sch.trace;
}

function decisionValue(trace: Trace, inst: Instruction): number {
  return (inst.attrs[0] as number[])[trace.getDecision(inst) as number]!;
}

/** Per split with sampled factors, the values of those factors (undefined where not sampled). */
function splitValues(trace: Trace): (number | undefined)[][] {
  return sampledSplits(trace).map((s) => s.factors.map((f) => (f === undefined ? undefined : decisionValue(trace, f))));
}

/** Threads per block and blocks of the sample's kernel, when it passes the postprocessors. */
function launchOf(trace: Trace, seed: number): { threads: number; blocks: number } | undefined {
  const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed });
  if (!out.ok) return undefined;
  const kernel = loweredModuleFor(out.sch.func)!.kernels[0]!;
  return { threads: kernel.launch.block.reduce((a, b) => a * b, 1), blocks: kernel.launch.grid.reduce((a, b) => a * b, 1) };
}

const seeds = fc.tuple(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }));

describe("MutateTileShape", () => {
  it("finds the two spatial loops' sampled splits (threads and register tile) of the GEMM", () => {
    const splits = sampledSplits(sampleTrace(1));
    expect(splits).toHaveLength(3); // i and j: [outer, threads, registers]; k: [outer, chunk]
    expect(splits.filter((s) => s.factors.filter((f) => f !== undefined).length === 2)).toHaveLength(2);
  });

  it("across loops: one factor moves between the same factor of two splits, their product stays", () => {
    fc.assert(
      fc.property(seeds, ([sampleSeed, rngSeed]) => {
        const trace = sampleTrace(sampleSeed);
        const moved = tileShapeMove(trace, "across", new RandomEngine(rngSeed));
        if (moved === undefined) return;
        const [a, b] = [splitValues(trace), splitValues(moved)];
        const changedAt = a.flatMap((s, k) => s.flatMap((v, p) => (v === b[k]![p] ? [] : [[k, p] as const])));
        expect(changedAt).toHaveLength(2);
        const [[k1, p1], [k2, p2]] = changedAt as [readonly [number, number], readonly [number, number]];
        expect(p1).toBe(p2);
        expect(k1).not.toBe(k2);
        expect(b[k1]![p1]! * b[k2]![p2]!).toBe(a[k1]![p1]! * a[k2]![p2]!);
      }),
      { numRuns: 20, seed: 4 },
    );
  });

  it("within a loop: a factor moves between its thread count and register tile, their product stays", () => {
    fc.assert(
      fc.property(seeds, ([sampleSeed, rngSeed]) => {
        const trace = sampleTrace(sampleSeed);
        const moved = tileShapeMove(trace, "within", new RandomEngine(rngSeed));
        if (moved === undefined) return;
        const [a, b] = [splitValues(trace), splitValues(moved)];
        const changed = a.flatMap((s, k) => (s.some((v, p) => v !== b[k]![p]) ? [k] : []));
        expect(changed).toHaveLength(1);
        const product = (xs: (number | undefined)[]) => xs.reduce<number>((x, y) => x * (y ?? 1), 1);
        expect(product(b[changed[0]!]!)).toBe(product(a[changed[0]!]!));
      }),
      { numRuns: 20, seed: 5 },
    );
  });

  it("transpose: the two spatial loops exchange every tiling decision; twice is the identity", () => {
    let transposed = 0;
    for (let seed = 1; seed <= 10; seed++) {
      const trace = sampleTrace(seed);
      const once = tileShapeMove(trace, "transpose", new RandomEngine(seed));
      if (once === undefined) continue; // both loops tiled alike already
      const [a, b] = [splitValues(trace), splitValues(once)];
      expect(b[0]).toEqual(a[1]);
      expect(b[1]).toEqual(a[0]);
      const twice = tileShapeMove(once, "transpose", new RandomEngine(seed + 1))!;
      const sampling = (t: Trace) => t.instructions.filter((i) => i.kind.name.startsWith("Sample")).map((i) => JSON.stringify(t.getDecision(i)));
      expect(sampling(twice)).toEqual(sampling(trace));
      transposed++;
    }
    expect(transposed).toBeGreaterThan(5);
  });

  it("keeps the threads per block or the number of blocks of every valid mutation", () => {
    let compared = 0;
    fc.assert(
      fc.property(seeds, ([sampleSeed, rngSeed]) => {
        const trace = sampleTrace(sampleSeed);
        const before = launchOf(trace, sampleSeed);
        const moved = new MutateTileShape().apply(trace, new RandomEngine(rngSeed), ctx);
        if (before === undefined || moved === undefined) return;
        const after = launchOf(moved, sampleSeed);
        if (after === undefined) return;
        expect(after.threads === before.threads || after.blocks === before.blocks).toBe(true);
        compared++;
      }),
      { numRuns: 10, seed: 6 },
    );
    expect(compared).toBeGreaterThan(3);
  });

  describe("on TVM's perfect-tile tiling", () => {
    const tvm = spaceOf(gemmReluAdd(256).func, { tiling: TVM_CUDA_TILING });
    const tvmSample = (seed: number): Trace => {
      const out = replayWithPostprocs(tvm.ctx, tvm.spaces[0]!.trace, [], { seed, freshDecisions: true });
      if (!out.ok) throw new Error(out.detail);
      return out.sch.trace;
    };
    const tiles = (t: Trace) => perfectTileDecisions(t).map((i) => t.getDecision(i) as number[]);
    const product = (xs: readonly number[]) => xs.reduce((a, b) => a * b, 1);

    it("tiles across: two decisions drawn alike change, each loop's extent and each level's product over both stay", () => {
      let moved = 0;
      for (let seed = 1; seed <= 30; seed++) {
        const trace = tvmSample(seed);
        const out = tileShapeMove(trace, "tilesAcross", new RandomEngine(seed));
        if (out === undefined) continue;
        const [a, b] = [tiles(trace), tiles(out)];
        const changed = a.flatMap((t, k) => (JSON.stringify(t) === JSON.stringify(b[k]) ? [] : [k]));
        expect(changed).toHaveLength(2);
        const [x, y] = changed as [number, number];
        const insts = perfectTileDecisions(trace);
        expect(insts[x]!.attrs).toEqual(insts[y]!.attrs);
        expect(product(b[x]!)).toBe(product(a[x]!));
        expect(product(b[y]!)).toBe(product(a[y]!));
        a[x]!.forEach((_, level) => expect(b[x]![level]! * b[y]![level]!).toBe(a[x]![level]! * a[y]![level]!));
        moved++;
      }
      expect(moved).toBeGreaterThan(5);
    });

    it("tiles transpose: two decisions over equal extents exchange their factors", () => {
      let moved = 0;
      for (let seed = 1; seed <= 30; seed++) {
        const trace = tvmSample(seed);
        const out = tileShapeMove(trace, "tilesTranspose", new RandomEngine(seed));
        if (out === undefined) continue;
        const [a, b] = [tiles(trace), tiles(out)];
        const changed = a.flatMap((t, k) => (JSON.stringify(t) === JSON.stringify(b[k]) ? [] : [k]));
        expect(changed).toHaveLength(2);
        expect(b[changed[0]!]).toEqual(a[changed[1]!]);
        expect(b[changed[1]!]).toEqual(a[changed[0]!]);
        moved++;
      }
      expect(moved).toBeGreaterThan(5);
    });
  });
});
