/** One lowering pass: a function from PrimFunc to PrimFunc, testable alone. */
import type { PrimFunc } from "@tessera/ir";
import type { Target } from "../target/target.js";

export interface PassContext {
  readonly target: Target;
  /** The whole function runs on the host (the C target): no host/device split, no GPU workspaces. */
  readonly onHost?: boolean;
}

export interface Pass {
  /** camelCase, as in docs/architecture/lowering.md (`lowerInitBlock`, `flattenBuffer`, …). */
  readonly name: string;
  run(func: PrimFunc, ctx: PassContext): PrimFunc;
}
