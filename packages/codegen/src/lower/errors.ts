import { TesseraError } from "@tessera/ir";

/**
 * A scheduled function that cannot be lowered for its target (an unbound loop nest touching
 * device memory, inconsistent thread extents, a GPU-only pass asked to run for a C target, …).
 * `pass` names the pass that found the problem.
 */
export class LoweringError extends TesseraError {
  override readonly name: string = "LoweringError";
  constructor(
    readonly pass: string,
    detail: string,
  ) {
    super(`${pass}: ${detail}`);
  }
}

/** A lowered kernel exceeds a limit of the target (threads, shared memory, vector width). */
/** The kinds of limit a kernel can exceed (threads per block, per SM or per dimension; grid; shared memory; vector width; local memory). */
export type GpuLimit = "threads" | "grid" | "shared-memory" | "vector-width" | "local-memory";

export class GpuVerifyError extends LoweringError {
  override readonly name = "GpuVerifyError";
  constructor(
    readonly kernel: string,
    readonly violations: readonly string[],
    /** Which limits the violations exceed, for tallies of rejected candidates. */
    readonly limits: readonly GpuLimit[] = [],
  ) {
    super("verifyGpuCode", `kernel ${kernel} does not fit the target: ${violations.join("; ")}`);
  }
}

/**
 * A schedule the C target cannot lower (a GPU thread binding, a shared-memory buffer, a
 * barrier), or a construct the C generator cannot express. The message names the loop or buffer.
 */
export class CLoweringError extends TesseraError {
  override readonly name = "CLoweringError";
  constructor(
    readonly func: string,
    readonly detail: string,
  ) {
    super(`C target, function ${func}: ${detail}`);
  }
}
