/**
 * The region-cover check of cache_read under predicates: a padded tile's guard shrinks what a block
 * reads (and what its producer writes), and the check now proves cover through the `min` that guard
 * leaves (the 1000³ matmul's operand slices were refused for it); a producer whose guard skips
 * points the consumer reads is still refused.
 */
import { type PrimFunc, compilePrimFunc, matmul, parsePrimFunc, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NotRegionCoverError } from "../src/error-catalogue.js";
import { Schedule } from "../src/index.js";
import { expectScheduleError } from "./support.js";

const MATMUL = matmul(10, 12, 8).func;

function expectSameResults(func: PrimFunc, sch: Schedule): void {
  const expected = randomArgs(func, 5);
  const actual = expected.map((a) => a.slice());
  compilePrimFunc(func).run(expected);
  compilePrimFunc(sch.func).run(actual);
  expect(Array.from(actual.at(-1)!)).toEqual(Array.from(expected.at(-1)!));
}

interface PaddedTiles {
  /** Rows per thread, threads, and the k tile; none need divide the extents. */
  readonly rows: number;
  readonly threads: number;
  readonly kTile: number;
  /** Splits the shared copy's fused loop by these inner factors (a cooperative fetch: threads, lanes). */
  readonly fetchSplit?: readonly number[];
}

/**
 * A matmul with i split into padded tiles of threads × rows, the threads bound, and A staged in
 * shared memory per k tile for all threads (the last tile clipped at the last row), then a
 * register slice of that tile per thread: the cache_read the region cover used to refuse.
 */
function paddedSlices(func: PrimFunc, tiles: PaddedTiles): Schedule {
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  const [i, j, k] = sch.getLoops(c);
  const [i0, i1, i2] = sch.split(i!, [null, tiles.threads, tiles.rows]);
  const [k0, k1] = sch.split(k!, [null, tiles.kTile]);
  sch.reorder(i0!, j!, i1!, k0!, k1!, i2!);
  sch.bind(i1!, "threadIdx.x");
  const shared = sch.cacheRead(c, 0, "shared");
  sch.computeAt(shared, k0!);
  // The copy's own loops (none where its tile is one element) are those below i0, j, i1 and k0.
  const copyLoops = sch.getLoops(shared).slice(4);
  if (tiles.fetchSplit !== undefined && copyLoops.length > 0) {
    const fused = copyLoops.length === 1 ? copyLoops[0]! : sch.fuse(...copyLoops);
    sch.split(fused, [null, ...tiles.fetchSplit]);
  }
  const slice = sch.cacheRead(c, 0, "local");
  sch.computeAt(slice, sch.getLoops(c)[4]!);
  return sch;
}

describe("cache_read under padded tiles", () => {
  it("accepts a register slice of a shared tile whose rows the padding guard clips", () => {
    const sch = paddedSlices(MATMUL, { rows: 4, threads: 2, kTile: 4 });
    expect(sch.script()).toContain("A_shared_local");
    expectSameResults(MATMUL, sch);
  });

  it("accepts it when the shared copy is a fused loop split with a guard", () => {
    const sch = paddedSlices(MATMUL, { rows: 4, threads: 2, kTile: 4, fetchSplit: [3] });
    expect(sch.script()).toMatch(/T\.where\(.*< 32\)/);
    expectSameResults(MATMUL, sch);
  });

  it("accepts it when the fused copy is split in two whose guard cuts whole rows (t * 8 + u < 32)", () => {
    const sch = paddedSlices(MATMUL, { rows: 4, threads: 2, kTile: 4, fetchSplit: [8, 8] });
    expect(sch.script()).toMatch(/T\.where\(.*< 32\)/);
    expectSameResults(MATMUL, sch);
  });

  it("random padded tiles execute as the unscheduled matmul", () => {
    const small = fc.integer({ min: 1, max: 5 });
    fc.assert(
      fc.property(
        fc.record({ n: fc.integer({ min: 3, max: 19 }), m: small, l: fc.integer({ min: 2, max: 11 }) }),
        fc.record({
          rows: small,
          threads: small,
          kTile: small,
          fetchSplit: fc.option(fc.array(fc.integer({ min: 2, max: 7 }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
        }),
        ({ n, m, l }, tiles) => {
          const func = matmul(n, m, l).func;
          expectSameResults(func, paddedSlices(func, tiles));
        },
      ),
      { numRuns: 25, seed: 1000 },
    );
  });
});

/** B written where `guard` holds, read by C where `readerGuard` holds. */
const SKIPPING_PRODUCER = (guard: string, readerGuard = "i < 8") => `
@T.prim_func
def main(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
    B = T.alloc_buffer((8,), "int32")
    for i in T.serial(8):
        with T.block("B"):
            vi = T.axis.remap("S", [i])
            T.where(${guard})
            B[vi] = A[vi] * 2
    for i in T.serial(8):
        with T.block("C"):
            vi = T.axis.remap("S", [i])
            T.where(${readerGuard})
            C[vi] = B[vi] + 1
`;

describe("cache_read refuses readers its producers do not cover", () => {
  it.each(["i % 2 == 0", "i != 3", "i < 2 or 5 < i"])("a producer guarded by %s", (guard) => {
    const sch = new Schedule(parsePrimFunc(SKIPPING_PRODUCER(guard)));
    const c = sch.getBlock("C");
    expectScheduleError(sch, () => sch.cacheRead(c, 0, "shared"), NotRegionCoverError, /region cover is not complete/);
  });

  it("a producer whose guard clips fewer rows than the reader reads", () => {
    const sch = new Schedule(parsePrimFunc(SKIPPING_PRODUCER("i < 6")));
    const c = sch.getBlock("C");
    expectScheduleError(sch, () => sch.cacheRead(c, 0, "shared"), NotRegionCoverError, /region cover is not complete/);
  });

  it("but accepts a reader whose own guard keeps it inside what is written", () => {
    const sch = new Schedule(parsePrimFunc(SKIPPING_PRODUCER("i < 6", "i < 5")));
    expect(() => sch.cacheRead(sch.getBlock("C"), 0, "shared")).not.toThrow();
  });
});
