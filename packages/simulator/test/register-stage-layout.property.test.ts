/**
 * Property: a register stage strided through its tile — a cooperative fetch through registers
 * split threads inner ([rounds, threads, lanes], the corpus's `aFetchOrder`/`bFetchOrder`
 * "thread-inner") — is indexed by the thread's iterators by compactBufferAllocation, so that the
 * kernel allocates only the thread's elements (rounds × lanes) instead of the hull of its rows and
 * columns. Random configurations of the fast schedule with either order for each operand lower,
 * allocate exactly each thread's share for both register stages, and simulate equal to the
 * sequential executor on the unscheduled function (race-free, no uninitialised reads): the
 * re-indexing keeps the meaning the schedule had before lowering.
 */
import type { LoweredModule } from "@tessera/codegen";
import { type FastScheduleParams, REGISTER_PREFETCH_PIPELINE, fastScheduleThreads } from "@tessera/corpus";
import { type Stmt, forEachStmt, gemmReluAdd } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SMALL_TILE_SHAPE, simulatesExactly, validAt } from "./fast-schedule-exactness.js";

const N = 64;

const order = fc.constantFrom("thread-outer" as const, "thread-inner" as const);

const paramsArb: fc.Arbitrary<FastScheduleParams> = fc.record({
  ...SMALL_TILE_SHAPE,
  pipeline: fc.constantFrom(null, REGISTER_PREFETCH_PIPELINE),
  minBlocksPerSM: fc.constant(0),
  unrollMaxStep: fc.constantFrom(0, 512),
  unrollExplicit: fc.boolean(),
  warpCols: fc.constantFrom(0, 4),
  aFetchOrder: order,
  bFetchOrder: order,
});

/** Elements of each local allocation of the kernel, by buffer name. */
function localAllocations(module: LoweredModule): Map<string, number> {
  const sizes = new Map<string, number>();
  forEachStmt(module.kernels[0]!.body, (s: Stmt) => {
    if (s.kind !== "Allocate" || s.buffer.scope !== "local") return;
    sizes.set(
      s.buffer.name,
      s.buffer.shape.reduce((n, d) => n * (d.kind === "IntImm" ? d.value : Number.NaN), 1),
    );
  });
  return sizes;
}

/**
 * Whether a thread-inner stage of this configuration spans more rows than it has rounds (a warp's
 * round covers more than one row), so that a per-dimension hull holds more than the thread's elements.
 */
function hullIsLarger(p: FastScheduleParams, threads: number): boolean {
  const perRound = threads * p.vector;
  const strided = (order: string | undefined, rowLength: number, elements: number) => order === "thread-inner" && elements > perRound && perRound > rowLength;
  return strided(p.aFetchOrder, p.tileK, p.blockRows * p.tileK) || strided(p.bFetchOrder, p.blockCols, p.tileK * p.blockCols);
}

describe("register stages fetched threads inner", () => {
  it("allocate only the thread's elements and simulate exactly (random fast-schedule configurations, 64³)", () => {
    const original = gemmReluAdd(N).func;
    let threadInner = 0;
    let stridedStages = 0;
    fc.assert(
      fc.property(
        paramsArb.filter((p) => validAt(N, p)),
        fc.integer({ min: 1, max: 1000 }),
        (p, seed) => {
          const module = simulatesExactly(N, p, original, seed);
          if (module === undefined) return;
          const threads = fastScheduleThreads(p);
          const sizes = localAllocations(module);
          expect(sizes.get("A_local")).toBe((p.blockRows * p.tileK) / threads);
          expect(sizes.get("B_local")).toBe((p.tileK * p.blockCols) / threads);
          if (p.aFetchOrder === "thread-inner" || p.bFetchOrder === "thread-inner") threadInner++;
          // Not vacuous: at least one stage the hull would have made larger.
          if (hullIsLarger(p, threads)) stridedStages++;
        },
      ),
      { numRuns: 30, seed: 41 },
    );
    expect(threadInner).toBeGreaterThan(10);
    expect(stridedStages).toBeGreaterThan(4);
  }, 120_000);
});
