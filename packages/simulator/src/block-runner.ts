/**
 * Runs the threads of one thread block with barrier semantics: every thread runs up to its next
 * barrier (one after another), then all continue together. A thread blocked in an mbarrier wait
 * is retried after the others have run, until it passes (or no thread can move: a deadlock). Threads that finish or stop at a
 * different barrier than the others are a barrier divergence.
 */
import { ExecutionError, TesseraError } from "@tessera/ir";
import type { CompiledKernel, ThreadFunction } from "./compile-kernel.js";
import { type Dim3, unflatten, volume } from "./dims.js";
import { type BarrierGroup, BarrierDivergenceError, OutOfBoundsError, SimulationError, describeLocation } from "./errors.js";
import type { ThreadClock } from "./thread-clock.js";
import { COLLECTIVE_YIELD, type WarpMma } from "./mma/warp-mma.js";
import { type BlockMbarriers, MBARRIER_YIELD } from "./mbarrier-runtime.js";
import { WARP_SIZE, type WarpCollectives, WarpDivergenceError } from "./wmma/warp-collectives.js";

/** Thrown by the runtime's bounds check; the block runner adds where it happened. */
export class OutOfBoundsFault extends Error {
  constructor(
    readonly site: number,
    readonly indices: readonly number[],
    readonly shape: readonly number[],
  ) {
    super("out-of-bounds access");
  }
}

const FINISHED = -1;

export interface BlockRun {
  readonly compiled: CompiledKernel;
  readonly thread: ThreadFunction;
  /** The kernel's arguments in parameter order. */
  readonly args: readonly unknown[];
  readonly clock: ThreadClock;
  /** The warp-collective runtime, when the kernel has WMMA calls. */
  readonly collectives?: WarpCollectives | undefined;
  /** The mma.sync runtime, when the kernel has ldmatrix or mma calls. */
  readonly mma?: WarpMma | undefined;
  /** The block's mbarriers and bulk copies. */
  readonly mbar: BlockMbarriers;
}

/** Runs block `blockIdx` on fresh `shared` arrays; returns the number of barrier intervals. */
export function runBlock(run: BlockRun, blockIdx: Dim3, shared: readonly unknown[]): number {
  const { compiled, clock } = run;
  const blockDim = compiled.dims.block;
  const n = volume(blockDim);
  const callArgs: unknown[] = [blockIdx[0], blockIdx[1], blockIdx[2], 0, 0, 0, ...run.args, ...shared];
  const threads = new Array<Generator<number, void, undefined>>(n);
  for (let t = 0; t < n; t++) {
    const [tx, ty, tz] = unflatten(t, blockDim);
    callArgs[3] = tx;
    callArgs[4] = ty;
    callArgs[5] = tz;
    threads[t] = run.thread(...callArgs);
  }
  clock.startBlock(blockIdx);
  run.collectives?.startBlock(blockIdx);
  run.mma?.startBlock(blockIdx);
  const state = new Int32Array(n);
  const step = (t: number): void => {
    clock.thread = t;
    let result: IteratorResult<number, void>;
    try {
      result = threads[t]!.next();
    } catch (err) {
      throw locate(err, compiled, blockIdx, unflatten(t, blockDim));
    }
    state[t] = result.done === true ? FINISHED : result.value;
  };
  // One pass over the threads (a retry steps only those blocked in an mbarrier wait).
  const sweep = (retry: boolean): void => {
    if (run.mma === undefined) {
      for (let t = 0; t < n; t++) if (!retry || state[t] === MBARRIER_YIELD) step(t);
    } else {
      for (let w = 0; w * WARP_SIZE < n; w++) runWarp(run.mma, w, Math.min(n, (w + 1) * WARP_SIZE), state, step, compiled, blockIdx, retry);
    }
  };
  for (let intervals = 1; ; intervals++) {
    sweep(false);
    while (state.includes(MBARRIER_YIELD)) {
      const events = run.mbar.events;
      sweep(true);
      if (run.mbar.events === events) throw mbarrierDeadlock(run.mbar, compiled, blockIdx, state);
    }
    const first = state[0]!;
    if (!state.every((s) => s === first)) throw divergence(compiled, blockIdx, state);
    run.collectives?.endInterval();
    run.mma?.endInterval();
    if (first === FINISHED) return intervals;
    clock.nextInterval();
  }
}

/**
 * Runs the threads of warp `w` (up to thread `end`) to their next barrier; whenever every lane
 * waits at a warp-collective call instead, performs it and runs them on.
 */
function runWarp(
  mma: WarpMma,
  w: number,
  end: number,
  state: Int32Array,
  step: (t: number) => void,
  compiled: CompiledKernel,
  blockIdx: Dim3,
  retry: boolean,
): void {
  const start = w * WARP_SIZE;
  for (let first = true; ; first = false) {
    for (let t = start; t < end; t++) if (!first || !retry || state[t] === MBARRIER_YIELD) step(t);
    let waiting = 0;
    for (let t = start; t < end; t++) if (state[t] === COLLECTIVE_YIELD) waiting++;
    if (waiting === 0) return;
    if (waiting !== end - start) {
      const at = state.subarray(start, end).findIndex((s) => s !== COLLECTIVE_YIELD);
      const where = `kernel ${compiled.kernel.name}, block (${blockIdx.join(", ")}), warp ${w}`;
      const other = state[start + at] === FINISHED ? "has finished" : `waits at ${compiled.barriers[state[start + at]!] ?? "a barrier"}`;
      throw new WarpDivergenceError(`${where}: ${waiting} lanes wait at an ldmatrix/mma.sync while lane ${at} ${other}`);
    }
    mma.complete(w, end - start);
  }
}

/** Every thread left is blocked in an mbarrier wait (or at a barrier) and none can move. */
function mbarrierDeadlock(mbar: BlockMbarriers, compiled: CompiledKernel, block: Dim3, state: Int32Array): SimulationError {
  const waiting: number[] = [];
  state.forEach((s, t) => {
    if (s === MBARRIER_YIELD) waiting.push(t);
  });
  const shown = waiting.slice(0, THREADS_SHOWN).map((t) => `thread (${unflatten(t, compiled.dims.block).join(", ")}) waits for ${mbar.describeWait(t)}`);
  const more = waiting.length > THREADS_SHOWN ? `, and ${waiting.length - THREADS_SHOWN} more threads` : "";
  return new SimulationError(
    `kernel ${compiled.kernel.name}, block (${block.join(", ")}): deadlock: ${waiting.length} threads wait at mbarriers and no thread can move (${shown.join("; ")}${more}). ` +
      `The mbarriers: ${mbar.describeBarriers()}`,
  );
}

/** A failure inside a thread, with the kernel, block and thread it happened in. */
function locate(err: unknown, compiled: CompiledKernel, block: Dim3, thread: Dim3): Error {
  const at = { kernel: compiled.kernel.name, block, thread };
  if (err instanceof OutOfBoundsFault) {
    const site = compiled.errorSites.sites[err.site];
    const access = site?.kind === "access" ? site : undefined;
    return new OutOfBoundsError(at, access?.bufferName ?? "?", access?.access ?? "load", err.indices, err.shape, access?.text ?? "an access");
  }
  if (err instanceof SimulationError) return err;
  if (err instanceof ExecutionError || err instanceof TesseraError) {
    return new SimulationError(`${describeLocation(at)}: ${err.message}`, { cause: err });
  }
  return err instanceof Error ? err : new Error(String(err));
}

/** At most this many threads are listed per state in a divergence report. */
const THREADS_SHOWN = 4;

function divergence(compiled: CompiledKernel, block: Dim3, state: Int32Array): BarrierDivergenceError {
  const groups = new Map<number, { threads: Dim3[]; count: number }>();
  state.forEach((s, t) => {
    let g = groups.get(s);
    if (g === undefined) groups.set(s, (g = { threads: [], count: 0 }));
    g.count++;
    if (g.threads.length < THREADS_SHOWN) g.threads.push(unflatten(t, compiled.dims.block));
  });
  const described: BarrierGroup[] = [...groups].map(([s, g]) => ({
    state: s === FINISHED ? "finished" : `waiting at ${compiled.barriers[s] ?? `barrier #${s + 1}`}`,
    threads: g.threads,
    count: g.count,
  }));
  return new BarrierDivergenceError(compiled.kernel.name, block, described);
}
