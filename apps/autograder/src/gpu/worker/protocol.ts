/**
 * What the grader and its GPU worker process send each other (structured clones over IPC). The
 * schedule crosses as the TVMScript of its scheduled function, which the worker parses and builds;
 * inputs are generated from seeds in the worker, so no large array crosses.
 */
import type { NumericsOutcome, TimingOutcome } from "../../grade/numerics-types.js";
import type { Numerics, Timing } from "../../manifest/index.js";
import type { GpuFault } from "../fault.js";

export type GpuWorkRequest =
  /** Asked of each new worker before its first request: a worker that cannot start is the grader's problem, not a kernel's. */
  | { readonly kind: "ping" }
  /** `assignment` names the binding whose inputs, output and reference the worker uses. */
  | { readonly kind: "numerics"; readonly assignment: string; readonly script: string; readonly settings: Numerics; readonly seed: number }
  | { readonly kind: "time"; readonly assignment: string; readonly script: string; readonly timing: Timing };

export type GpuWorkReply =
  | { readonly kind: "pong"; readonly pid: number }
  | { readonly kind: "numerics"; readonly outcome: NumericsOutcome }
  | { readonly kind: "time"; readonly outcome: TimingOutcome }
  /** A CUDA error: the worker's context is unusable and the grader replaces the worker. */
  | { readonly kind: "fault"; readonly fault: GpuFault };
