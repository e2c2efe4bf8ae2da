/** Shared helpers of the inline / decompose / rfactor tests. */
import { type PrimFunc, compilePrimFunc, randomArgs } from "@tessera/ir";
import { expect } from "vitest";
import type { Schedule } from "../src/index.js";

/** Runs `f`, expects it to throw an instance of `cls` mentioning `text`, and the schedule to be unchanged. */
export function expectScheduleError(sch: Schedule, f: () => unknown, cls: new (...a: never[]) => Error, text: string): Error {
  const before = sch.func;
  const traced = sch.trace.instructions.length;
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(cls);
  expect((err as Error).message).toContain(text);
  expect(sch.func).toBe(before);
  expect(sch.trace.instructions.length).toBe(traced);
  return err as Error;
}

/** Runs both functions on the same random inputs and returns the outputs of each. */
export function runBoth(before: PrimFunc, after: PrimFunc, seed: number): [number[][], number[][]] {
  const run = (f: PrimFunc) => {
    const args = randomArgs(before, seed);
    compilePrimFunc(f).run(args);
    return args.map((a) => Array.from(a as ArrayLike<number>));
  };
  return [run(before), run(after)];
}
