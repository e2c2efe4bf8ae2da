/** Errors of `build()` and of calling a built module. */
import { TesseraError } from "@tessera/ir";

/** The input, target or device given to `build()` cannot be built, or a disposed module was used. */
export class BuildError extends TesseraError {
  override readonly name = "BuildError";
}

/** A built module was called with the wrong number of arguments, or with one of the wrong kind, dtype or shape. */
export class ModuleArgumentError extends TesseraError {
  override readonly name = "ModuleArgumentError";
  constructor(
    message: string,
    /** The module's function name. */
    readonly module: string,
    /** The offending argument's index; undefined when the count is wrong. */
    readonly index: number | undefined,
  ) {
    super(message);
  }
}
