/**
 * Handle arguments of the `Schedule` methods. Under `noUncheckedIndexedAccess` the destructured
 * results of `getLoops` & co. have type `T | undefined`, so the methods accept that type and turn
 * an actual `undefined` into a `ScheduleUsageError` that names the argument and the likely cause,
 * before anything runs or is recorded. Wrong handle kinds are left to the primitives' own checks.
 *
 * Also the result types whose length follows an argument: `split(loop, [null, 32])` returns
 * `[LoopRV, LoopRV]`, `samplePerfectTile(loop, 4)` returns four `ExprRV`s.
 */
import { ScheduleUsageError } from "./errors.js";
import type { BlockRV, ExprRV, LoopRV } from "./handles.js";

/** One `LoopRV` per factor: a tuple when the factor list is a tuple, else `LoopRV[]`. */
export type LoopsFor<F extends readonly unknown[]> = { -readonly [K in keyof F]: LoopRV };

/** `n` `ExprRV`s: a tuple for a literal `n` (up to 32), else `ExprRV[]`. */
export type ExprRVs<N extends number> = number extends N ? ExprRV[] : N extends N ? TupleOf<ExprRV, N> : never;

type TupleOf<T, N extends number, Acc extends T[] = []> = Acc["length"] extends N
  ? Acc
  : Acc["length"] extends 32
    ? T[] // a negative, fractional or huge literal: give up on the tuple (the call fails at run time anyway)
    : TupleOf<T, N, [...Acc, T]>;

const LOOP_HINT = "did getLoops return fewer loops than you destructured?";
const BLOCK_HINT = "did getChildBlocks, getProducers or getConsumers return fewer blocks than you destructured?";
const HANDLE_HINT = "did a lookup (getLoops, getChildBlocks, …) return fewer handles than you destructured?";

function undefinedArgument(method: string, arg: string, hint: string): ScheduleUsageError {
  return new ScheduleUsageError(method, `${method}: argument \`${arg}\` is undefined — ${hint}`);
}

export function requireLoop(method: string, arg: string, x: LoopRV | undefined): LoopRV {
  if (x === undefined) throw undefinedArgument(method, arg, LOOP_HINT);
  return x;
}

export function requireBlock(method: string, arg: string, x: BlockRV | undefined): BlockRV {
  if (x === undefined) throw undefinedArgument(method, arg, BLOCK_HINT);
  return x;
}

/** A block, a loop or a sampled value (annotate's target and value, `get`). */
export function requireHandle<T extends BlockRV | LoopRV | ExprRV>(method: string, arg: string, x: T | undefined): T {
  if (x === undefined) throw undefinedArgument(method, arg, HANDLE_HINT);
  return x;
}

/** A list of loops, each checked (`loops[2]` in the message). */
export function requireLoops(method: string, arg: string, xs: readonly (LoopRV | undefined)[]): LoopRV[] {
  return xs.map((x, i) => requireLoop(method, `${arg}[${i}]`, x));
}

export function requireBlocks(method: string, arg: string, xs: readonly (BlockRV | undefined)[]): BlockRV[] {
  return xs.map((x, i) => requireBlock(method, `${arg}[${i}]`, x));
}
