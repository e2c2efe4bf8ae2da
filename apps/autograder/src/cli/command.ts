/** A `tessera-grade` subcommand; `run` gets the arguments after its name and returns the exit code. */
import type { GradeIO } from "./io.js";

export interface GradeCommand {
  readonly name: string;
  /** e.g. `batch DIR --out OUT` */
  readonly usage: string;
  readonly summary: string;
  /** Extra lines for `--help` (options). */
  readonly help?: string;
  run(args: readonly string[], io: GradeIO): Promise<number>;
}

/** A mistake in the command line: reported without a stack trace, exit code 2. */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
