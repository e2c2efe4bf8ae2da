/** Base class of every error Tessera reports about user input or IR misuse. */
export class TesseraError extends Error {
  override name = "TesseraError";
}

/** Misuse of the IR API itself (bad dtype, mismatched operand types, wrong arity). */
export class IRError extends TesseraError {
  override name = "IRError";
}
