/**
 * Errors of traces: a malformed trace document (`TraceFormatError`, naming the JSON path of the
 * problem) and a failed replay step (`TraceReplayError`, a `ScheduleError` naming the step).
 */
import { TesseraError } from "@tessera/ir";
import { ScheduleError } from "../errors.js";

export class TraceFormatError extends TesseraError {
  override name = "TraceFormatError";
  constructor(
    /** Where the problem is, e.g. `instructions[3].inputs[1]` (empty for the whole document). */
    readonly path: string,
    /** What is wrong there. */
    readonly problem: string,
  ) {
    super(`malformed trace: ${path === "" ? "" : `${path}: `}${problem}`);
  }
}

/** A trace instruction failed during replay; wraps the primitive's own error. */
export class TraceReplayError extends ScheduleError {
  override name = "TraceReplayError";
  constructor(
    /** The index of the failing instruction in the trace (0-based, as in JSON decision indices). */
    readonly step: number,
    /** The kind name of the failing instruction, e.g. "Split". */
    readonly kindName: string,
    override readonly cause: TesseraError,
  ) {
    super(
      cause instanceof ScheduleError ? cause.primitive : kindName,
      cause instanceof ScheduleError ? cause.detail : cause.message,
      cause instanceof ScheduleError ? cause.locations : [],
    );
    this.message = `trace replay failed at step ${step} (${kindName}):\n${cause.message}`;
  }
}

/**
 * A trace given as text (what `Trace.show()` prints) that cannot be read or replayed: names the
 * line and column (1-based) and says what was expected there.
 */
export class TraceTextError extends TesseraError {
  override name = "TraceTextError";
  constructor(
    readonly line: number,
    readonly column: number,
    /** What is wrong, without the position. */
    readonly problem: string,
  ) {
    super(`${line}:${column}: ${problem}`);
  }
}
