import type { CommandSpec } from "../help/spec.js";
import type { CliIO } from "../io.js";

/**
 * A subcommand. `args` are the command-line arguments after the subcommand
 * name; the returned promise resolves to the process exit code.
 */
export type CommandRunner = (args: readonly string[], io: CliIO) => Promise<number>;

export interface Command {
  readonly name: string;
  /** e.g. `print FILE [--color | --no-color]` */
  readonly usage: string;
  readonly summary: string;
  /** Options, defaults and exit codes: what `tessera NAME --help` prints. */
  readonly spec: CommandSpec;
  readonly run: CommandRunner;
}
