import { TesseraError } from "@tessera/ir";

/**
 * A lowered kernel uses something a shader generator (WGSL, Metal) cannot express, or exceeds a
 * limit of its target; `kernel` names the kernel and `language` the generator.
 */
export class ShaderCodegenError extends TesseraError {
  override readonly name = "ShaderCodegenError";
  constructor(
    readonly language: "WGSL" | "Metal",
    readonly kernel: string,
    readonly detail: string,
  ) {
    super(`${language} codegen of kernel ${kernel}: ${detail}`);
  }
}
