import { TesseraError } from "@tessera/ir";

/** An unknown target name or an invalid limit override. */
export class TargetError extends TesseraError {
  override readonly name = "TargetError";
}
