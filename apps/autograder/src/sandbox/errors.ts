import { TesseraError } from "@tessera/ir";

/** A submission file that does not compile or imports something it may not (esbuild's diagnostics, file:line:col). */
export class SubmissionBuildError extends TesseraError {
  override readonly name = "SubmissionBuildError";
  constructor(
    readonly file: string,
    readonly diagnostics: readonly string[],
  ) {
    super(`${file} cannot be loaded:\n${diagnostics.map((d) => `  ${d}`).join("\n")}`);
  }
}
