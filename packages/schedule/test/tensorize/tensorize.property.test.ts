/**
 * Property: on random tilings of a matmul (tile sizes, orders of the tile loops, the loop given),
 * tensorize with an intrinsic whose implementation is TIR either computes what the function
 * computed before, or fails with a specific ScheduleError and changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type LoopRV, Schedule, ScheduleError } from "../../src/index.js";
import { runOn } from "../support.js";
import { MMA_16, matmulNT } from "./fixtures.js";

const WORKLOAD = matmulNT(32);
const FACTORS = [4, 8, 16, 32] as const;

interface Case {
  readonly tiles: readonly [number, number, number];
  readonly outerOrder: readonly number[];
  readonly innerOrder: readonly number[];
  readonly at: number;
  readonly viaBlockize: boolean;
}

const permutation = fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 });
const caseArb: fc.Arbitrary<Case> = fc.record({
  // Mostly the intrinsic's 16×16×16 tiles, so that many cases tensorize.
  tiles: fc.tuple(
    ...([0, 1, 2] as const).map(() => fc.oneof({ weight: 6, arbitrary: fc.constant(16) }, { weight: 1, arbitrary: fc.constantFrom(...FACTORS) })),
  ) as fc.Arbitrary<[number, number, number]>,
  outerOrder: permutation,
  innerOrder: fc.oneof({ weight: 3, arbitrary: fc.constant([0, 1, 2]) }, { weight: 1, arbitrary: permutation }),
  // Index 3 is the first tile loop.
  at: fc.oneof({ weight: 3, arbitrary: fc.constant(3) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 5 }) }),
  viaBlockize: fc.boolean(),
});

describe("tensorize preserves meaning", () => {
  it("random tilings tensorized with a TIR-implemented 16×16×16 intrinsic", () => {
    const expected = runOn(WORKLOAD, 5);
    let tensorized = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const sch = new Schedule(WORKLOAD, { debugMask: "all" });
        const loops = sch.getLoops(sch.getBlock("update"));
        const split = loops.map((l, d) => sch.split(l, [null, c.tiles[d]!]));
        const outer = c.outerOrder.map((d) => split[d]![0]);
        const inner = c.innerOrder.map((d) => split[d]![1]);
        sch.reorder(...outer, ...inner);
        const nest = sch.getLoops(sch.getBlock("update"));
        const before = sch.func;
        try {
          const loop: LoopRV | undefined = nest[c.at];
          if (c.viaBlockize) sch.tensorize(sch.blockize(loop), MMA_16);
          else sch.tensorize(loop, MMA_16);
          tensorized++;
        } catch (e) {
          expect(e).toBeInstanceOf(ScheduleError);
          expect((e as Error).constructor).not.toBe(ScheduleError);
          // A blockize that succeeded before a failed tensorize is its own recorded step.
          if (!c.viaBlockize) expect(sch.func).toBe(before);
          return;
        }
        expect(runOn(sch.func, 5)).toEqual(expected);
      }),
      { numRuns: 40, seed: 2121 },
    );
    expect(tensorized).toBeGreaterThan(8);
  });
});
