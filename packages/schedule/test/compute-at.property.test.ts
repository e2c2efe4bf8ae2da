import { type PrimFunc, compilePrimFunc, parsePrimFunc, randomArgs } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrimitiveContext } from "../src/context.js";
import { type BlockRV, type LoopRV, Schedule, ScheduleError } from "../src/index.js";
import { canComputeAt, canReverseComputeAt } from "../src/primitives/compute-at/index.js";
import type { ScheduleState } from "../src/state/schedule-state.js";

/** A three-stage int32 pipeline; C's i loop is split by `f` (with a T.where when it does not divide). */
function pipeline(n: number, m: number, f: number, reduce: boolean): string {
  const outer = Math.ceil(n / f);
  const where = outer * f === n ? "" : `\n            T.where(i_0 * ${f} + i_1 < ${n})`;
  const cBlock = reduce
    ? `    for i_0, i_1, j, k in T.grid(${outer}, ${f}, ${m}, ${m}):
        with T.block("C"):
            vi = T.axis.spatial(${n}, i_0 * ${f} + i_1)
            vj = T.axis.spatial(${m}, j)
            vk = T.axis.reduce(${m}, k)${where}
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + B[vi, vk] * (vj + 1)`
    : `    for i_0, i_1, j in T.grid(${outer}, ${f}, ${m}):
        with T.block("C"):
            vi = T.axis.spatial(${n}, i_0 * ${f} + i_1)
            vj = T.axis.spatial(${m}, j)${where}
            C[vi, vj] = B[vi, vj] * 3 - B[vi, ${m - 1} - vj]`;
  return `
@T.prim_func
def main(A: T.Buffer((${n}, ${m}), "int32"), D: T.Buffer((${n}, ${m}), "int32")):
    B = T.alloc_buffer((${n}, ${m}), "int32")
    C = T.alloc_buffer((${n}, ${m}), "int32")
    for i, j in T.grid(${n}, ${m}):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + 7
${cBlock}
    for i, j in T.grid(${n}, ${m}):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * 2 + A[vi, vj]
`;
}

function run(func: PrimFunc, seed: number): number[] {
  const args = randomArgs(func, seed);
  compilePrimFunc(func, { boundsCheck: true }).run(args);
  return Array.from(args[1]!);
}

interface Move {
  readonly reverse: boolean;
  readonly block: BlockRV;
  readonly loop: LoopRV;
  readonly preserve: boolean;
}

const ctxOf = (sch: Schedule) => new PrimitiveContext((sch as unknown as { state: ScheduleState }).state);

/**
 * The moves TVM intends (and sampleComputeLocation makes): a block under a loop of one of its
 * consumers (computeAt) or producers (reverseComputeAt). TVM itself does not check that the rest of
 * the program keeps its order, so other placements are not output-preserving by design.
 */
function candidateMoves(sch: Schedule): Move[] {
  const moves: Move[] = [];
  for (const block of ["B", "C", "D"].map((n) => sch.getBlock(n))) {
    for (const reverse of [false, true]) {
      const related = reverse ? sch.getProducers(block) : sch.getConsumers(block);
      const loops = [...new Set(related.flatMap((b) => sch.getLoops(b)).map((l) => sch.get(l)))];
      for (const loopNode of loops) {
        const loop = related.flatMap((b) => sch.getLoops(b)).find((l) => sch.get(l) === loopNode)!;
        for (const preserve of [false, true]) moves.push({ reverse, block, loop, preserve });
      }
    }
  }
  return moves;
}

function apply(sch: Schedule, mv: Move): void {
  if (mv.reverse) sch.reverseComputeAt(mv.block, mv.loop, mv.preserve);
  else sch.computeAt(mv.block, mv.loop, mv.preserve);
}

const accepted = (sch: Schedule, mv: Move) => (mv.reverse ? canReverseComputeAt : canComputeAt)(ctxOf(sch), mv.block, mv.loop, mv.preserve);

describe("compute-at preserves the computed outputs", () => {
  it("random valid compute_at / reverse_compute_at sequences on int32 pipelines", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 6 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        fc.array(fc.nat(), { minLength: 1, maxLength: 2 }),
        fc.integer({ min: 1, max: 1000 }),
        (n, m, f, reduce, picks, seed) => {
          const func = parsePrimFunc(pipeline(n, m, f, reduce));
          const expected = run(func, seed);
          const sch = new Schedule(func);
          for (const pick of picks) {
            const all = candidateMoves(sch);
            const valid = all.filter((mv) => accepted(sch, mv));
            // The check-only answer agrees with the primitive on a rejected move too.
            const rejected = all.find((mv) => !valid.includes(mv));
            if (rejected !== undefined) expect(() => apply(sch.copy(), rejected)).toThrow(ScheduleError);
            if (valid.length === 0) break;
            const mv = valid[pick % valid.length]!;
            apply(sch, mv);
            expect(run(sch.func, seed)).toEqual(expected);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
