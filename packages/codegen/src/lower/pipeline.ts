/**
 * `lower(func, target)`: the one lowering entry point. The target's kind picks the pipeline:
 * CUDA targets get the GPU pipeline (`LoweredModule`: kernels, workspaces, launch metadata), C
 * targets the host pipeline (`CLoweredFunc`: one flat function). WebGPU and Metal targets get the
 * GPU pipeline under their own limits. A GPU-only pass never runs for a C target.
 */
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import type { CLoweredFunc, Lowered, LoweredModule } from "../lowered.js";
import type { CTarget } from "../targets/c.js";
import type { CudaTarget } from "../targets/cuda.js";
import type { MetalTarget, WebGpuTarget } from "../targets/gpu-source.js";
import { type CTargetName, type CudaTargetName, type MetalTargetName, type Target, type WebGpuTargetName, target as resolveTarget } from "../targets/target.js";
import { lowerForC } from "./c-pipeline.js";
import { lowerForCuda } from "./cuda-pipeline.js";
import { lowerForGpuSource } from "./gpu-source-pipeline.js";
import type { LowerOptions } from "./lower-options.js";
import { refuseUnsupportedInput } from "./unsupported-input.js";

/** What `lower` accepts: a scheduled function, or a schedule (its current function). */
export type LowerInput = PrimFunc | Schedule;

/** Lowers a scheduled function (or a schedule's current function) for `target`, a target or a target string. */
export function lower(input: LowerInput, target: CudaTarget | CudaTargetName, opts?: LowerOptions): LoweredModule;
export function lower(input: LowerInput, target: CTarget | CTargetName, opts?: LowerOptions): CLoweredFunc;
export function lower(input: LowerInput, target: WebGpuTarget | WebGpuTargetName, opts?: LowerOptions): LoweredModule<WebGpuTarget>;
export function lower(input: LowerInput, target: MetalTarget | MetalTargetName, opts?: LowerOptions): LoweredModule<MetalTarget>;
export function lower(input: LowerInput, target: Target | string, opts?: LowerOptions): Lowered;
export function lower(input: LowerInput, target: Target | string, opts: LowerOptions = {}): Lowered {
  const source = isPrimFunc(input) ? input : input.func;
  const t = typeof target === "string" ? resolveTarget(target) : target;
  refuseUnsupportedInput(source);
  switch (t.kind) {
    case "cuda":
      return lowerForCuda(source, t, opts);
    case "c":
      return lowerForC(source, t, opts);
    case "webgpu":
    case "metal":
      return lowerForGpuSource(source, t, opts);
  }
}

function isPrimFunc(x: LowerInput): x is PrimFunc {
  return (x as { kind?: unknown }).kind === "PrimFunc";
}
