/**
 * `codegenCuda`: one CUDA C translation unit for a lowered module (a preamble with only the
 * helpers its kernels use, then the kernels in launch order) and the launch metadata of each.
 */
import type { LaunchMetadata } from "../launch-metadata.js";
import type { DeviceKernel, LoweredModule } from "../lowered.js";
import { type EmittedKernel, type KernelEmitOptions, emitKernel } from "./kernel-emitter.js";
import { launchMetadata } from "./launch.js";
import { usesAsyncCopy } from "./async-copy.js";
import { CodegenError } from "./errors.js";
import { usesMma } from "./mma.js";
import { WGMMA_ARCH, usesWgmma } from "./wgmma.js";
import { MBARRIER_MIN_ARCH, usesMbarrier } from "./mbarrier.js";
import { archNumber, asyncCopyUnsupported, supportsAsyncCopy } from "../targets/cuda.js";
import { type Feature, preamble } from "./preamble.js";

export interface CudaModule {
  readonly source: string;
  /**
   * The architecture the source must be compiled for when a kernel uses an architecture-specific
   * instruction (wgmma: "sm_90a"); absent when the target's own architecture will do.
   */
  readonly requiredArch?: string;
  /** One entry per kernel, in launch order. */
  readonly kernels: LaunchMetadata[];
}

/** Whether the module's source function promises non-aliasing buffers (`tir.noalias`, TVM's default). */
export function moduleNoalias(module: LoweredModule): boolean {
  const attr = module.source.attrs["tir.noalias"] ?? module.source.attrs["tirx.noalias"];
  if (attr === undefined) return true;
  if (typeof attr === "boolean") return attr;
  if (typeof attr === "object" && "kind" in attr && attr.kind === "IntImm") return attr.value !== 0;
  return true;
}

export interface EmittedModule {
  readonly kernels: readonly { readonly kernel: DeviceKernel; readonly emitted: EmittedKernel; readonly launch: LaunchMetadata }[];
  readonly preamble: string;
  /** See CudaModule.requiredArch. */
  readonly requiredArch?: string;
}

/** Emits every kernel of `module` with the given linkage; shared by `codegenCuda` and `exportHeader`. */
export function emitModule(module: LoweredModule, options: KernelEmitOptions): EmittedModule {
  const features = new Set<Feature>();
  const kernels = module.kernels.map((kernel) => {
    const emitted = emitKernel(kernel, { noalias: moduleNoalias(module), ...options });
    if (usesAsyncCopy(emitted.features) && !supportsAsyncCopy(module.target)) {
      throw new CodegenError(kernel.name, asyncCopyUnsupported(module.target));
    }
    if (usesMma(emitted.features) && !supportsAsyncCopy(module.target)) {
      throw new CodegenError(kernel.name, `mma.sync m16n8k16/m16n8k8 needs sm_80 or newer; target ${module.target.name} is ${module.target.arch}`);
    }
    if (usesWgmma(emitted.features) && archNumber(module.target) !== 90) {
      throw new CodegenError(
        kernel.name,
        `wgmma.mma_async (T.ptx.wgmma_mma_async_ss) exists only on sm_90a (Hopper); target ${module.target.name} is ${module.target.arch}`,
      );
    }
    if (emitted.features.has("setmaxnreg") && archNumber(module.target) !== 90)
      throw new CodegenError(
        kernel.name,
        `setmaxnreg (T.ptx.setmaxnreg_inc/dec) exists only on sm_90a (Hopper); target ${module.target.name} is ${module.target.arch}`,
      );
    if (emitted.features.has("tma") && archNumber(module.target) < MBARRIER_MIN_ARCH) {
      const maps = kernel.params.flatMap((p) => (p.kind === "buffer" && p.tensorMap !== undefined ? [p.name] : []));
      throw new CodegenError(
        kernel.name,
        `TMA loads (T.ptx.cp_async_bulk_tensor_2d) of buffer ${maps.join(", ")} need sm_90 or newer; target ${module.target.name} is ${module.target.arch}`,
      );
    }
    if (usesMbarrier(emitted.features) && archNumber(module.target) < MBARRIER_MIN_ARCH) {
      throw new CodegenError(
        kernel.name,
        `mbarrier transaction counts and cp.async.bulk (T.ptx.mbarrier_*, T.ptx.cp_async_bulk) need sm_90 or newer; target ${module.target.name} is ${module.target.arch}`,
      );
    }
    for (const f of emitted.features) features.add(f);
    return { kernel, emitted, launch: launchMetadata(kernel, emitted.shape, emitted.dynamicSharedBytes) };
  });
  // setmaxnreg, like wgmma, exists only on sm_90a.
  const archSpecific = usesWgmma(features) || features.has("setmaxnreg");
  return { kernels, preamble: preamble(features), ...(archSpecific ? { requiredArch: WGMMA_ARCH } : {}) };
}

export function codegenCuda(module: LoweredModule): CudaModule {
  const emitted = emitModule(module, { linkage: "extern-c" });
  const parts = [emitted.preamble, ...emitted.kernels.map((k) => k.emitted.text)].filter((p) => p.length > 0);
  return {
    source: `${parts.join("\n\n")}\n`,
    kernels: emitted.kernels.map((k) => k.launch),
    ...(emitted.requiredArch === undefined ? {} : { requiredArch: emitted.requiredArch }),
  };
}

/**
 * The definition of one kernel (`extern "C" __global__ ...`). Helpers it may need (floor
 * division, float4 operators) are not included: `codegenCuda` adds them to the preamble.
 */
export function codegenKernel(kernel: DeviceKernel, options: KernelEmitOptions = {}): string {
  return emitKernel(kernel, options).text;
}
