/** Small workloads shared by the loop-primitive tests. */
import { type PrimFunc, compilePrimFunc, parsePrimFunc, randomArgs, structuralEqual } from "@tessera/ir";
import { expect } from "vitest";
import type { Schedule } from "../src/index.js";

export const ELEMENTWISE = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;

export const VECTOR_100 = `
@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i in range(100):
        with T.block("B"):
            vi = T.axis.spatial(100, i)
            B[vi] = A[vi] * T.float32(2.0)
`;

/** An int32 matmul: exact under any reordering of the reduction. */
export function intMatmul(m: number, n: number, k: number): string {
  return `
@T.prim_func
def main(A: T.Buffer((${m}, ${k}), "int32"), B: T.Buffer((${k}, ${n}), "int32"), C: T.Buffer((${m}, ${n}), "int32")):
    for i, j, k in T.grid(${m}, ${n}, ${k}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;
}

export const parse = (text: string): PrimFunc => parsePrimFunc(text);

/** Runs `f` on seeded random inputs and returns every argument array afterwards. */
export function runOn(f: PrimFunc, seed: number): unknown[][] {
  const args = randomArgs(f, seed);
  compilePrimFunc(f).run(args);
  return args.map((a) => Array.from(a as ArrayLike<number>));
}

/** Calls `op` expecting a ScheduleError of class `cls`; checks the schedule is unchanged. */
export function expectScheduleError(sch: Schedule, op: () => unknown, cls: abstract new (...a: never[]) => Error, text: string | RegExp): Error {
  const before = sch.func;
  const traceLength = sch.trace.instructions.length;
  let err: unknown;
  try {
    op();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  if (typeof text === "string") expect((err as Error).message).toContain(text);
  else expect((err as Error).message).toMatch(text);
  expect(structuralEqual(sch.func, before)).toBe(true);
  expect(sch.trace.instructions.length).toBe(traceLength);
  return err as Error;
}
