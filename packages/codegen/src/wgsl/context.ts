/** State shared by the WGSL expression and statement emitters of one kernel. */
import type { DType, Var } from "@tessera/ir";
import type { IndexFacts } from "../c-family/index-facts.js";
import type { NameTable } from "../c-family/names.js";
import type { WebGpuTarget } from "../targets/gpu-source.js";
import { ShaderCodegenError } from "../shader/errors.js";

/** Module-level helpers a kernel's expressions need. */
export type WgslFeature = "floordiv" | "nonfinite" | "f16";

export interface WgslContext {
  readonly kernelName: string;
  readonly target: WebGpuTarget;
  readonly names: NameTable;
  readonly facts: IndexFacts;
  readonly features: Set<WgslFeature>;
  /** Array name and element type, by the storage's `data` variable; `vec4`: declared as an array of vec4 (vector-views.ts). */
  readonly storage: Map<Var, { readonly name: string; readonly dtype: DType; readonly vec4: boolean }>;
  /** Text of thread indices, scalar parameters (`scalars.n`) and other predefined variables. */
  readonly predefined: Map<Var, string>;
}

export function fail(ctx: WgslContext, detail: string): never {
  throw new ShaderCodegenError("WGSL", ctx.kernelName, detail);
}
