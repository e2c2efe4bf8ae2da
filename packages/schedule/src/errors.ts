/**
 * Schedule errors. Every failed precondition throws a `ScheduleError` subclass naming the
 * primitive, explaining the rule in one sentence, and — once the schedule attaches the function —
 * printing the IR with the offending blocks and loops underlined, in the layout TVM users know:
 *
 *   ScheduleError: An error occurred in the schedule primitive 'compute-at'.
 *
 *   The IR with diagnostic is:
 *   <TVMScript with ^^^^ under the located nodes>
 *   Error message: <the rule>
 */
import { type Block, type For, type PrimFunc, TesseraError, printTVMScript } from "@tessera/ir";

export class ScheduleError extends TesseraError {
  override name = "ScheduleError";
  /** The one-sentence explanation, without the IR. */
  readonly detail: string;

  constructor(
    /** The primitive's name as TVM spells it in messages, e.g. "split", "compute-at". */
    readonly primitive: string,
    detail: string,
    /** The blocks and loops the message is about; they are underlined in the rendered IR. */
    readonly locations: readonly (Block | For)[] = [],
  ) {
    super(`ScheduleError: An error occurred in the schedule primitive '${primitive}'.\nError message: ${detail}`);
    this.detail = detail;
  }

  /** Renders the full message with the IR of `func`; called by the schedule before rethrowing. */
  attachIR(func: PrimFunc, funcName: string): this {
    let ir: string;
    try {
      ir = printTVMScript(func, { funcName, highlight: new Set<object>(this.locations) });
    } catch {
      ir = "(the IR could not be printed)";
    }
    this.message =
      `ScheduleError: An error occurred in the schedule primitive '${this.primitive}'.\n\n` +
      `The IR with diagnostic is:\n${ir}\nError message: ${this.detail}`;
    return this;
  }
}

/** A handle whose block or loop no longer exists (it was removed or replaced by a primitive). */
export class StaleHandleError extends ScheduleError {
  override name = "StaleHandleError";
}

/** Misuse of the API that is not about the IR (bad argument types, unknown function). */
export class ScheduleUsageError extends ScheduleError {
  override name = "ScheduleUsageError";
}
