/**
 * Random schedules for property tests over schedule state: a three-stage int32 workload (an
 * elementwise producer, a reduction, an elementwise consumer) and fast-check steps on it — splits,
 * shared cache reads, compute-at and reverse-compute-at moves — that pick blocks and loops by index
 * modulo what is there, so every drawn step names something that exists.
 */
import fc from "fast-check";
import { type Schedule, ScheduleError } from "../src/index.js";

/** The workload, `A` and `D` of `n × m`, the reduction over `m`. */
export const threeStageWorkload = (n: number, m: number): string => `@T.prim_func
def main(A: T.Buffer((${n}, ${m}), "int32"), D: T.Buffer((${n}, ${m}), "int32")):
    B = T.alloc_buffer((${n}, ${m}), "int32")
    C = T.alloc_buffer((${n}, ${m}), "int32")
    for i, j in T.grid(${n}, ${m}):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + 7
    for i, j, k in T.grid(${n}, ${m}, ${m}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + B[vi, vk] * (vj + 1)
    for i, j in T.grid(${n}, ${m}):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * 2 + A[vi, vj]
`;

export type StageStep =
  | { kind: "split"; block: number; loop: number; factor: number }
  | { kind: "cacheRead"; block: number }
  | { kind: "move"; block: number; target: number; loop: number; reverse: boolean };

export const stageStep: fc.Arbitrary<StageStep> = fc.oneof(
  fc.record({ kind: fc.constant("split" as const), block: fc.nat(), loop: fc.nat(), factor: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("cacheRead" as const), block: fc.nat() }),
  fc.record({ kind: fc.constant("move" as const), block: fc.nat(), target: fc.nat(), loop: fc.nat(), reverse: fc.boolean() }),
);

const pick = <T>(xs: readonly T[], k: number): T | undefined => (xs.length === 0 ? undefined : xs[k % xs.length]);

/** Applies `s` to `sch`; a step the schedule refuses (a ScheduleError) leaves it as it was. */
export function applyStageStep(sch: Schedule, s: StageStep): void {
  const blocks = sch.getChildBlocks(sch.getBlock("root"));
  const block = pick(blocks, s.block)!;
  try {
    if (s.kind === "split") {
      const loop = pick(sch.getLoops(block), s.loop);
      if (loop !== undefined) sch.split(loop, [null, s.factor]);
    } else if (s.kind === "cacheRead") {
      sch.cacheRead(block, 0, "shared");
    } else {
      const loop = pick(sch.getLoops(pick(blocks, s.target)!), s.loop);
      if (loop === undefined) return;
      if (s.reverse) sch.reverseComputeAt(block, loop);
      else sch.computeAt(block, loop);
    }
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
  }
}
