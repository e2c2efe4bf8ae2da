/**
 * `codegenWgsl`: one WGSL shader module per kernel of a module lowered for a WebGPU target, with
 * what the runtime needs to dispatch each, checked against the target's limits.
 */
import type { DType } from "@tessera/ir";
import type { LoweredModule, Workspace } from "../lowered.js";
import type { WebGpuTarget } from "../targets/gpu-source.js";
import { emitWgslKernel } from "./kernel-emitter.js";
import type { WgslKernel } from "./launch.js";
import { checkWgslLimits } from "./limits.js";

/** A parameter of the lowered function: what the host passes, in order. */
export interface WgslParam {
  readonly name: string;
  readonly kind: "buffer" | "scalar";
  /** Element type of a buffer, value type of a scalar. */
  readonly dtype: DType;
}

export interface WgslModule {
  /** The function's global symbol. */
  readonly name: string;
  /** The function's parameters in order: the host arguments of every call. */
  readonly params: readonly WgslParam[];
  readonly target: WebGpuTarget;
  /** Kernels in launch order, each a complete shader module. */
  readonly kernels: readonly WgslKernel[];
  /** Global intermediates the host allocates for one call (bound as storage buffers). */
  readonly workspaces: readonly Workspace[];
  /** Every kernel's shader, each under a comment naming it (for printing; compile `kernels[i].source`). */
  readonly source: string;
}

export function codegenWgsl(module: LoweredModule<WebGpuTarget>): WgslModule {
  const kernels = module.kernels.map((kernel): WgslKernel => {
    const emitted = emitWgslKernel(kernel, module.target);
    const wgsl: WgslKernel = {
      name: kernel.name,
      source: emitted.source,
      grid: emitted.shape.grid,
      workgroupSize: emitted.shape.block,
      bindings: emitted.bindings,
      workgroupBytes: emitted.workgroupBytes,
    };
    checkWgslLimits(wgsl, module.target);
    return wgsl;
  });
  const source = kernels.map((k) => `// kernel ${k.name}: dispatch (${k.grid.join(", ")}) workgroups\n${k.source}`).join("\n");
  const params = module.source.params.map((v): WgslParam => {
    const buffer = module.source.bufferMap.get(v);
    return buffer === undefined ? { name: v.name, kind: "scalar", dtype: v.dtype } : { name: buffer.name, kind: "buffer", dtype: buffer.dtype };
  });
  return { name: module.name, params, target: module.target, kernels, workspaces: module.workspaces, source };
}
