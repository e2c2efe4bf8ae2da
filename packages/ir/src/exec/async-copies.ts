/**
 * The run-time side of `T.ptx_cp_async` and the async queue attributes. Generated code calls one
 * queue per thread (`$async`): `copy` for each cp.async, `commit` after a commit-queue scope,
 * `wait(n)` before a wait-queue scope. When a copy lands is the queue's business:
 * `ImmediateCopies` (the sequential executor) lands it at once; the GPU simulator's queue keeps
 * it pending until its group is waited for.
 */
import { ExecutionError } from "./errors.js";
import type { ErrorSiteTable } from "./runtime.js";
import type { TypedArray } from "./typed-arrays.js";

/** One issued copy. The source is read at issue (a GPU may read it any time before the copy completes). */
export interface IssuedCopy {
  readonly dst: TypedArray;
  readonly dstIndex: number;
  /** The source elements, or undefined for a zero fill (predicate false). */
  readonly values: TypedArray | undefined;
  readonly lanes: number;
  /** Observes each destination element written when the copy lands (the race detector's shadow). */
  readonly record: ((index: number) => number) | undefined;
}

/** Writes a copy's elements to its destination. */
export function landCopy(c: IssuedCopy): void {
  for (let k = 0; k < c.lanes; k++) {
    const i = c.record === undefined ? c.dstIndex + k : c.record(c.dstIndex + k);
    c.dst[i] = c.values === undefined ? 0 : c.values[k]!;
  }
}

export abstract class AsyncCopyQueue {
  constructor(private readonly sites: ErrorSiteTable) {}

  /**
   * Issues a copy of `lanes` elements from `src[srcIndex..]` to `dst[dstIndex..]` (both ranges are
   * bounds-checked by the caller). `site` is the destination's error site, for messages.
   */
  copy(
    dst: TypedArray,
    dstIndex: number,
    src: TypedArray,
    srcIndex: number,
    lanes: number,
    predicate: boolean,
    site: number,
    record: ((index: number) => number) | undefined,
  ): void {
    if (dstIndex % lanes !== 0 || (predicate && srcIndex % lanes !== 0)) {
      const s = this.sites.sites[site];
      const text = s === undefined ? "a cp.async" : `${s.text}${s.where}`;
      throw new ExecutionError(
        `misaligned cp.async of ${lanes} elements: destination element ${dstIndex}, source element ${srcIndex}; ` +
          `both must be multiples of ${lanes} (the copy's size in bytes is its alignment) in ${text}`,
      );
    }
    const values = predicate ? src.slice(srcIndex, srcIndex + lanes) : undefined;
    this.issue({ dst, dstIndex, values, lanes, record });
  }

  protected abstract issue(c: IssuedCopy): void;
  /** Closes the current group (`cp.async.commit_group`). */
  abstract commit(): void;
  /** Completes all but the newest `inflight` groups (`cp.async.wait_group`). */
  abstract wait(inflight: number): void;
  /** Completes everything still pending (the thread ends). */
  abstract drain(): void;
}

/** Sequential semantics: every copy lands when it is issued. */
export class ImmediateCopies extends AsyncCopyQueue {
  protected issue(c: IssuedCopy): void {
    landCopy(c);
  }
  commit(): void {}
  wait(_inflight: number): void {}
  drain(): void {}
}
