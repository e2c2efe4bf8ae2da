/**
 * Errors the simulator raises: an access outside a buffer, threads of a block that disagree about
 * a barrier, a kernel the simulator cannot run, or arguments that do not fit the kernel.
 */
import { TesseraError } from "@tessera/ir";
import { type Dim3, formatDim3 } from "./dims.js";

export class SimulationError extends TesseraError {
  override name = "SimulationError";
}

/** Where in a launch something happened. */
export interface ThreadLocation {
  readonly kernel: string;
  readonly block: Dim3;
  readonly thread: Dim3;
}

export function describeLocation(at: ThreadLocation): string {
  return `kernel ${at.kernel}, block ${formatDim3(at.block)}, thread ${formatDim3(at.thread)}`;
}

export class OutOfBoundsError extends SimulationError {
  override name = "OutOfBoundsError";
  constructor(
    readonly at: ThreadLocation,
    readonly buffer: string,
    readonly access: "load" | "store",
    /** The indices of the access (one for flat buffers). */
    readonly indices: readonly number[],
    /** The buffer's shape: index k is valid in `[0, shape[k])`. */
    readonly shape: readonly number[],
    /** The access as written in the IR, e.g. `A[blockIdx.x * 64 + threadIdx.x + 2]`. */
    readonly text: string,
  ) {
    const bad = indices.findIndex((i, k) => !(i >= 0 && i < (shape[k] ?? 0)));
    const k = Math.max(bad, 0);
    const dim = indices.length > 1 ? ` in dimension ${k}` : "";
    super(
      `out-of-bounds ${access} ${access === "load" ? "from" : "to"} buffer ${buffer} in ${describeLocation(at)}: ` +
        `index ${indices[k]}${dim} is outside the valid range [0, ${shape[k]}) (indices [${indices.join(", ")}], ` +
        `shape [${shape.join(", ")}]) in ${text}`,
    );
  }
}

/** One group of threads of a block in the same state when the block could not proceed. */
export interface BarrierGroup {
  /** `barrier #k (…)` or `finished`. */
  readonly state: string;
  readonly threads: readonly Dim3[];
  readonly count: number;
}

/**
 * Threads of one block reached different barriers, or some finished while others wait at a
 * barrier (`__syncthreads()` in divergent code: a deadlock or undefined behaviour on a GPU).
 */
export class BarrierDivergenceError extends SimulationError {
  override name = "BarrierDivergenceError";
  constructor(
    readonly kernel: string,
    readonly block: Dim3,
    readonly groups: readonly BarrierGroup[],
  ) {
    const parts = groups.map((g) => {
      const shown = g.threads.map(formatDim3).join(", ");
      const more = g.count > g.threads.length ? `, … (${g.count} threads)` : "";
      return `${g.state}: thread${g.count === 1 ? "" : "s"} ${shown}${more}`;
    });
    super(`barrier divergence in kernel ${kernel}, block ${formatDim3(block)}: the threads do not all reach the same barrier; ${parts.join("; ")}`);
  }
}
