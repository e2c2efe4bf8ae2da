import { TesseraError } from "../errors.js";

/** A PrimFunc cannot be compiled for the CPU executor, was given bad arguments, or failed while running. */
export class ExecutionError extends TesseraError {
  override name = "ExecutionError";
}
