/**
 * The WebGPU run slot: where the scheduled kernel will run on the student's own GPU once
 * @tessera/codegen builds for "webgpu". Until then it only says whether this browser has WebGPU.
 */
export const GPU_RUN_UNAVAILABLE = "WebGPU run: not available in this build";

/** What the slot reports for this run. */
export function gpuRunStatus(): string {
  const gpu = (globalThis.navigator as { gpu?: unknown } | undefined)?.gpu;
  const browser = gpu === undefined ? "this browser exposes no navigator.gpu" : "this browser has navigator.gpu";
  return `${GPU_RUN_UNAVAILABLE} (${browser}; the WGSL target is not wired in yet)`;
}
