/**
 * The CPU half of a build: lower a scheduled function and generate its CUDA C. Runs in the build
 * workers, and in the caller's thread when the builder has no workers.
 */
import { codegenCuda, lower, type LoweredModule, type CudaTarget } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import type { BuiltArtifact, HostArgument, HostPlan } from "../interfaces/builder.js";

export interface GenerateTask {
  readonly func: PrimFunc;
  readonly target: CudaTarget;
  /** Send the lowered module back (for in-process runners such as the simulated one). */
  readonly keepLowered: boolean;
}

export type GeneratedArtifact = Omit<BuiltArtifact, "image" | "arch">;

export function hostPlanOf(lowered: LoweredModule): HostPlan {
  return {
    workspaces: lowered.workspaces.map((w) => ({ name: w.name, dtype: w.dtype, elements: w.elements })),
    kernelArguments: lowered.kernels.map((k) =>
      k.params.map((p): HostArgument => {
        if (p.kind === "scalar") return { kind: "scalar", name: p.name };
        const map = p.tensorMap;
        return map === undefined
          ? { ...p.source }
          : { ...p.source, tensorMap: { shape: [...map.shape], rowStride: map.rowStride, box: [...map.box], swizzle: map.swizzle } };
      }),
    ),
  };
}

export function lowerAndGenerate(task: GenerateTask): GeneratedArtifact {
  const lowered = lower(task.func, task.target);
  const generated = codegenCuda(lowered);
  return {
    name: lowered.name,
    source: generated.source,
    kernels: generated.kernels,
    hostPlan: hostPlanOf(lowered),
    ...(generated.requiredArch === undefined ? {} : { requiredArch: generated.requiredArch }),
    ...(task.keepLowered ? { lowered } : {}),
  };
}
