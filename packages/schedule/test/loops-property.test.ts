/**
 * Property: random splits, fuses and reorders (valid or not) never change what an int32 matmul
 * computes, and invalid ones fail with a ScheduleError that leaves the schedule unchanged.
 */
import { parsePrimFunc, printTVMScript, structuralEqual } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Schedule, ScheduleError } from "../src/index.js";
import { parse, runOn } from "./loops-fixtures.js";

const WORKLOAD = parse(`
@T.prim_func
def main(A: T.Buffer((6, 4), "int32"), B: T.Buffer((4, 5), "int32"), D: T.Buffer((6, 5), "int32")):
    C = T.alloc_buffer((6, 5), "int32")
    for i, j, k in T.grid(6, 5, 4):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(6, 5):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * 3 + 1
`);

type Step =
  | { op: "split"; block: number; loop: number; factors: (number | null)[]; preserve: boolean }
  | { op: "fuse"; block: number; start: number; count: number }
  | { op: "reorder"; block: number; picks: number[] };

const factor = fc.oneof(fc.integer({ min: 1, max: 7 }), fc.constant(null));
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    op: fc.constant("split" as const),
    block: fc.nat(1),
    loop: fc.nat(7),
    factors: fc.array(factor, { minLength: 1, maxLength: 3 }),
    preserve: fc.boolean(),
  }),
  fc.record({ op: fc.constant("fuse" as const), block: fc.nat(1), start: fc.nat(7), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant("reorder" as const), block: fc.nat(1), picks: fc.array(fc.nat(7), { minLength: 2, maxLength: 4 }) }),
);

function apply(sch: Schedule, s: Step): void {
  const loops = sch.getLoops(sch.getBlock(s.block === 0 ? "C" : "D"));
  const at = (n: number) => loops[n % loops.length]!;
  switch (s.op) {
    case "split":
      sch.split(at(s.loop), s.factors, { preserveUnitIters: s.preserve });
      return;
    case "fuse":
      sch.fuse(...loops.slice(s.start % loops.length, (s.start % loops.length) + s.count));
      return;
    case "reorder":
      sch.reorder(...s.picks.map(at));
  }
}

describe("loop transformations preserve meaning", () => {
  const expected = runOn(WORKLOAD, 7);

  it("random split / fuse / reorder sequences", () => {
    let applied = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 4 }), (steps) => {
        const sch = new Schedule(WORKLOAD, { debugMask: "all" });
        for (const s of steps) {
          const before = sch.func;
          try {
            apply(sch, s);
            applied++;
          } catch (e) {
            expect(e).toBeInstanceOf(ScheduleError);
            // A specific rule, not an internal IR error wrapped by the schedule.
            expect((e as Error).constructor).not.toBe(ScheduleError);
            expect(structuralEqual(sch.func, before)).toBe(true);
          }
        }
        expect(runOn(sch.func, 7)).toEqual(expected);
        // What the schedule prints is TVMScript that reads back as the same function.
        expect(structuralEqual(parsePrimFunc(printTVMScript(sch.func)), sch.func, { compareNames: true })).toBe(true);
      }),
      { numRuns: 250, seed: 4242 },
    );
    expect(applied).toBeGreaterThan(200);
  });
});
