/**
 * Meaning preservation: after every prefix of passes 1–8 each corpus schedule computes what the
 * unscheduled function computes, on the sequential CPU executor (thread loops and launch
 * attributes run as serial loops, in program order, so every cooperative fetch finishes before
 * the compute that reads it).
 */
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { PASSES_FRONT } from "../../src/lower/passes/index.js";
import { LARGE_CORPUS_ENTRIES, checkThroughFrontPasses } from "./corpus-execution.js";
import { CTX, expectSameResults, runFront } from "./helpers.js";
import { manualSchedule, scheduleCorpus } from "@tessera/corpus";

describe("passes 1–8 preserve the corpus' results", () => {
  // The two largest entries are checked the same way by execution-large.test.ts (pnpm test:slow).
  for (const entry of scheduleCorpus().filter((e) => !LARGE_CORPUS_ENTRIES.includes(e.name))) {
    test(entry.name, () => checkThroughFrontPasses(entry));
  }
});

test("a small manual schedule keeps its results through passes 1–3", () => {
  const params = { tileX: 16, tileY: 16, tileK: 8, threadTileX: 2, threadTileY: 2, threadTileK: 1 };
  let f = manualSchedule(32, params).func;
  const reference = gemmReluAdd(32).func;
  PASSES_FRONT.slice(0, 3).forEach((pass, i) => {
    f = pass.run(f, CTX);
    expectSameResults(f, reference, 5 + i);
  });
});

/** A random GPU schedule of a small gemm+relu+add: split, reorder, bind, optional k split. */
function randomSchedule(n: number, tileI: number, tileJ: number, splitK: number | undefined, swapThreads: boolean): PrimFunc {
  const sch = new Schedule(gemmReluAdd(n).func);
  const gemm = sch.getBlock("gemm");
  const [i, j, k] = sch.getLoops(gemm) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1] = sch.split(i, [null, tileI]) as [LoopRV, LoopRV];
  const [j0, j1] = sch.split(j, [null, tileJ]) as [LoopRV, LoopRV];
  if (splitK !== undefined) {
    const [k0, k1] = sch.split(k, [null, splitK]) as [LoopRV, LoopRV];
    sch.reorder(i0, j0, i1, j1, k0, k1);
  } else sch.reorder(i0, j0, i1, j1);
  sch.bind(i0, "blockIdx.x");
  sch.bind(j0, "blockIdx.y");
  sch.bind(i1, swapThreads ? "threadIdx.y" : "threadIdx.x");
  sch.bind(j1, swapThreads ? "threadIdx.x" : "threadIdx.y");
  sch.reverseComputeAt(sch.getBlock("relu"), j1);
  return sch.func;
}

test("random bound schedules of a small gemm keep their results through passes 1–8", () => {
  const n = 16;
  const reference = gemmReluAdd(n).func;
  const tile = fc.constantFrom(1, 2, 4, 8, 16);
  fc.assert(
    fc.property(tile, tile, fc.option(fc.constantFrom(2, 4, 8), { nil: undefined }), fc.boolean(), (ti, tj, tk, swap) => {
      const f = randomSchedule(n, ti, tj, tk, swap);
      const lowered = runFront(f);
      expectSameResults(lowered, reference, ti * 31 + tj);
      expect(lowered.body.kind).not.toBe("BlockRealize");
    }),
    { numRuns: 25, seed: 42 },
  );
});
