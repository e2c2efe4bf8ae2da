import { TesseraError } from "@tessera/ir";

/**
 * A lowered kernel uses something the CUDA generator cannot express (an unsupported dtype, a
 * symbolic shared-memory size, a construct lowering should have removed). `kernel` names it.
 */
export class CodegenError extends TesseraError {
  override readonly name = "CodegenError";
  constructor(
    readonly kernel: string,
    readonly detail: string,
  ) {
    super(`CUDA codegen of kernel ${kernel}: ${detail}`);
  }
}
