import { TesseraError } from "@tessera/ir";

/**
 * A schedule the CPU target cannot lower (a GPU thread binding, a shared-memory buffer, a
 * barrier), or a construct the C generator cannot express. The message names the loop or buffer.
 */
export class CpuLoweringError extends TesseraError {
  override readonly name = "CpuLoweringError";
  constructor(
    readonly func: string,
    readonly detail: string,
  ) {
    super(`C target, function ${func}: ${detail}`);
  }
}
