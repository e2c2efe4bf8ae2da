/**
 * Runs the threads of one thread block with barrier semantics: every thread runs up to its next
 * barrier (one after another), then all continue together. Threads that finish or stop at a
 * different barrier than the others are a barrier divergence.
 */
import { ExecutionError, TesseraError } from "@tessera/ir";
import type { CompiledKernel, ThreadFunction } from "./compile-kernel.js";
import { type Dim3, unflatten, volume } from "./dims.js";
import { type BarrierGroup, BarrierDivergenceError, OutOfBoundsError, SimulationError, describeLocation } from "./errors.js";
import type { ThreadClock } from "./thread-clock.js";
import type { WarpCollectives } from "./wmma/warp-collectives.js";

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
  const state = new Int32Array(n);
  for (let intervals = 1; ; intervals++) {
    for (let t = 0; t < n; t++) {
      clock.thread = t;
      let step: IteratorResult<number, void>;
      try {
        step = threads[t]!.next();
      } catch (err) {
        throw locate(err, compiled, blockIdx, unflatten(t, blockDim));
      }
      state[t] = step.done === true ? FINISHED : step.value;
    }
    const first = state[0]!;
    if (!state.every((s) => s === first)) throw divergence(compiled, blockIdx, state);
    run.collectives?.endInterval();
    if (first === FINISHED) return intervals;
    clock.nextInterval();
  }
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
