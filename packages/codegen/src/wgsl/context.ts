/** State shared by the WGSL expression and statement emitters of one kernel. */
import type { DType } from "@tessera/ir";
import type { WebGpuTarget } from "../targets/gpu-source.js";
import { ShaderCodegenError } from "../shader/errors.js";
import type { WalkerContext } from "../walker/expr-walker.js";

/** Module-level helpers a kernel's expressions need. */
export type WgslFeature = "floordiv" | "nonfinite" | "f16";

/**
 * `storage`: `vec4` when declared as an array of vec4 (vector-views.ts); `predefined`: thread
 * indices and scalar parameters (`scalars.n`).
 */
export interface WgslContext extends WalkerContext<{ readonly name: string; readonly dtype: DType; readonly vec4: boolean }> {
  readonly target: WebGpuTarget;
  readonly features: Set<WgslFeature>;
}

export function fail(ctx: WgslContext, detail: string): never {
  throw new ShaderCodegenError("WGSL", ctx.kernelName, detail);
}
