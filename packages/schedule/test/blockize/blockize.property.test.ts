/**
 * Property: on random loop nests (splits, some non-divisible, fuses and reorders of an int32 matmul with
 * init and of an elementwise map), blockize at a random loop either computes exactly what the
 * function computed before, or fails with a specific ScheduleError and changes nothing.
 */
import { parsePrimFunc, printTVMScript, structuralEqual } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Schedule, ScheduleError } from "../../src/index.js";
import { intMatmul } from "../loops-fixtures.js";
import { runOn } from "../support.js";

const WORKLOADS = [
  parsePrimFunc(intMatmul(12, 8, 6)),
  parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((12, 10), "int32"), B: T.Buffer((12, 10), "int32")):
    for i, j in T.grid(12, 10):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * 3 + 1
`),
];

interface Case {
  readonly workload: number;
  readonly splits: readonly { loop: number; factor: number }[];
  readonly order: readonly number[];
  readonly at: number;
  readonly preserve: boolean;
  /** Fuse the two outermost loops after splitting (bindings with `f // n` and `f % n`). */
  readonly fuse: boolean;
}

const caseArb: fc.Arbitrary<Case> = fc.record({
  workload: fc.nat(WORKLOADS.length - 1),
  splits: fc.array(fc.record({ loop: fc.nat(7), factor: fc.integer({ min: 1, max: 6 }) }), { maxLength: 3 }),
  order: fc.array(fc.nat(7), { minLength: 0, maxLength: 4 }),
  at: fc.nat(7),
  preserve: fc.boolean(),
  fuse: fc.boolean(),
});

/** Splits and reorders, each skipped when the schedule refuses it. */
function shape(sch: Schedule, c: Case): void {
  const loops = () => sch.getLoops(sch.getBlock("C"));
  for (const s of c.splits) {
    const ls = loops();
    try {
      sch.split(ls[s.loop % ls.length], [null, s.factor]);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
    }
  }
  if (c.fuse) {
    const [a, b] = loops();
    try {
      sch.fuse(a, b);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
    }
  }
  const ls = loops();
  const picks = [...new Set(c.order.map((n) => ls[n % ls.length]!))];
  if (picks.length > 1) {
    try {
      sch.reorder(...picks);
    } catch (e) {
      if (!(e instanceof ScheduleError)) throw e;
    }
  }
}

describe("blockize preserves meaning", () => {
  it("random loop nests, blockized at a random loop", () => {
    const expected = WORKLOADS.map((w) => runOn(w, 11));
    let blockized = 0;
    fc.assert(
      fc.property(caseArb, (c) => {
        const sch = new Schedule(WORKLOADS[c.workload]!, { debugMask: "all" });
        shape(sch, c);
        const ls = sch.getLoops(sch.getBlock("C"));
        const before = sch.func;
        try {
          sch.blockize(ls[c.at % ls.length], { preserveUnitIters: c.preserve });
          blockized++;
        } catch (e) {
          expect(e).toBeInstanceOf(ScheduleError);
          expect((e as Error).constructor).not.toBe(ScheduleError);
          expect(sch.func).toBe(before);
          return;
        }
        expect(runOn(sch.func, 11)).toEqual(expected[c.workload]);
        expect(structuralEqual(parsePrimFunc(printTVMScript(sch.func)), sch.func)).toBe(true);
      }),
      { numRuns: 100, seed: 3434 },
    );
    expect(blockized).toBeGreaterThan(60);
  });
});
