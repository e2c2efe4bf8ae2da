/** Errors of the host (C) backend. */

/**
 * The generated C did not compile. The message carries the compiler's diagnostics and the path
 * of the generated file, which stays on disk for inspection.
 */
export class CCompileError extends Error {
  override readonly name = "CCompileError";
  constructor(
    readonly sourcePath: string,
    readonly command: readonly string[],
    readonly log: string,
  ) {
    super(`the C compiler failed on ${sourcePath} (${command.join(" ")}):\n${log.trim()}`);
  }
}

/** No C compiler, or the native addon that loads compiled libraries is missing. */
export class HostBackendUnavailableError extends Error {
  override readonly name = "HostBackendUnavailableError";
}
