/**
 * An error caused by how the CLI was invoked or by its inputs (bad arguments,
 * missing files, unparsable programs). `main` prints it as `tessera: <message>`
 * without a stack trace and exits with `exitCode` (2 by default).
 */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 2) {
    super(message);
    this.name = "CliError";
    this.exitCode = exitCode;
  }
}
