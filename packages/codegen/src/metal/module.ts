/**
 * `codegenMetal`: one Metal Shading Language source for a module lowered for a Metal target
 * (every kernel, in launch order), with each kernel's dispatch: threadgroups per grid and threads
 * per threadgroup. Untested on Apple hardware: there is no Metal compiler here.
 */
import type { Dim3 } from "../launch-metadata.js";
import type { LoweredModule } from "../lowered.js";
import type { MetalTarget } from "../targets/gpu-source.js";
import { ShaderCodegenError } from "../shader/errors.js";
import { emitMetalKernel } from "./kernel-emitter.js";

export interface MetalKernelInfo {
  readonly name: string;
  /** Threadgroups per grid (`dispatchThreadgroups`' first argument): the CUDA grid. */
  readonly threadgroups: Dim3;
  /** Threads per threadgroup: the CUDA block. */
  readonly threadsPerThreadgroup: Dim3;
  readonly threadgroupBytes: number;
}

export interface MetalModule {
  readonly name: string;
  readonly source: string;
  readonly kernels: readonly MetalKernelInfo[];
}

const PREAMBLE = ["#include <metal_stdlib>", "using namespace metal;"];

const FLOOR_HELPERS = [
  "inline int tessera_floordiv(int a, int b) {",
  "  int q = a / b;",
  "  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;",
  "}",
  "",
  "inline int tessera_floormod(int a, int b) {",
  "  int r = a % b;",
  "  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;",
  "}",
];

export function codegenMetal(module: LoweredModule<MetalTarget>): MetalModule {
  const t = module.target;
  const emitted = module.kernels.map((k) => emitMetalKernel(k));
  const kernels = emitted.map((e, i): MetalKernelInfo => {
    const name = module.kernels[i]!.name;
    if (e.threadgroupBytes > t.maxSharedMemoryPerBlock) {
      throw new ShaderCodegenError(
        "Metal",
        name,
        `uses ${e.threadgroupBytes} bytes of threadgroup memory; target "${t.name}" allows ${t.maxSharedMemoryPerBlock} (maxTotalThreadgroupMemoryLength)`,
      );
    }
    return { name, threadgroups: e.shape.grid, threadsPerThreadgroup: e.shape.block, threadgroupBytes: e.threadgroupBytes };
  });
  const helpers = emitted.some((e) => e.floorDivision) ? ["", ...FLOOR_HELPERS] : [];
  const source = [[...PREAMBLE, ...helpers].join("\n"), ...emitted.map((e) => e.text)].join("\n\n");
  return { name: module.name, source: `${source}\n`, kernels };
}
