/** Helpers shared by the schedule tests. */
import { type PrimFunc, compilePrimFunc, randomArgs } from "@tessera/ir";
import { expect } from "vitest";
import type { Schedule } from "../src/index.js";

/**
 * Runs `op`, expects it to throw an instance of `cls` whose message contains (or matches) `text`,
 * and checks that the failed call left the schedule exactly as it was (same IR object, same trace).
 */
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
  expect(sch.func).toBe(before);
  expect(sch.trace.instructions.length).toBe(traceLength);
  return err as Error;
}

/** Runs `f` on seeded random inputs and returns every argument array afterwards. */
export function runOn(f: PrimFunc, seed: number): number[][] {
  const args = randomArgs(f, seed);
  compilePrimFunc(f).run(args);
  return args.map((a) => Array.from(a as ArrayLike<number>));
}

/** Runs both functions on the same random inputs (drawn for `before`) and returns the outputs of each. */
export function runBoth(before: PrimFunc, after: PrimFunc, seed: number): [number[][], number[][]] {
  const run = (f: PrimFunc) => {
    const args = randomArgs(before, seed);
    compilePrimFunc(f).run(args);
    return args.map((a) => Array.from(a as ArrayLike<number>));
  };
  return [run(before), run(after)];
}
