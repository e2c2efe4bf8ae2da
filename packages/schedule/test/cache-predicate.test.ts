/**
 * Regression: a cache stage inserted next to a reader under a non-divisible split used to copy
 * the relaxed region without the reader's predicate and stored out of bounds (found by the
 * random-schedule property, seed 4).
 */
import { compilePrimFunc, parsePrimFunc, randomArgs } from "@tessera/ir";
import { expect, it } from "vitest";
import { Schedule } from "../src/index.js";

const MATMUL = `
@T.prim_func
def mm(A: T.Buffer((8, 8), "int32"), B: T.Buffer((8, 8), "int32"), C: T.Buffer((8, 8), "int32")):
    for i, j, k in T.grid(8, 8, 8):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;

it("guards a cache copy that would reach past the buffer with a T.where", () => {
  const func = parsePrimFunc(MATMUL);
  const sch = new Schedule(func);
  const c = sch.getBlock("C");
  const writeBack = sch.cacheWrite(c, 0, "shared");
  const [, j] = sch.getLoops(c);
  sch.reverseComputeAt(writeBack, j!);
  const loops = sch.getLoops(writeBack);
  sch.split(loops[loops.length - 1]!, [null, 3]);
  sch.cacheRead(writeBack, 0, "shared");
  expect(sch.script()).toContain("T.where(j_0 * 3 + j_1 + ax1 < 8)");

  const expected = randomArgs(func, 1);
  const actual = expected.map((a) => a.slice());
  compilePrimFunc(func).run(expected);
  compilePrimFunc(sch.func).run(actual);
  expect(Array.from(actual[2]!)).toEqual(Array.from(expected[2]!));
});
