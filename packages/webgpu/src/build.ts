/**
 * `build(func, "webgpu")`: lowers a scheduled function (or schedule) for a WebGPU target and
 * generates its WGSL, as `build(func, "cuda")` does for CUDA. Pure and browser-safe: what it
 * returns is loaded onto a device with `loadModule(device, built)`.
 */
import { type LowerInput, type WebGpuTarget, type WebGpuTargetName, type WgslModule, codegenWgsl, lower, target as resolveTarget } from "@tessera/codegen";

/** Lowers `input` for `target` (default `webgpu`, WebGPU's default limits) and generates its WGSL. */
export function build(input: LowerInput, target: WebGpuTarget | WebGpuTargetName = "webgpu"): WgslModule {
  const t = typeof target === "string" ? resolveTarget(target) : target;
  return codegenWgsl(lower(input, t));
}
