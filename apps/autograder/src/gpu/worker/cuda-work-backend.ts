/** The GPU worker's default backend: numerics and timing on the local CUDA GPU (device 0). */
import { cuda } from "@tessera/runtime";
import { gpuNumerics } from "../numerics.js";
import { gpuTime } from "../timing.js";
import type { GpuWorkBackend } from "./work-backend.js";

let deviceName: string | undefined;

/** Opened on the first request: a worker that has not worked yet holds no CUDA context. */
function device(): string {
  deviceName ??= cuda.device(0).name;
  return deviceName;
}

export const backend: GpuWorkBackend = {
  numerics: (func, binding, settings, seed) => gpuNumerics(func, binding, settings, seed, device()),
  time: (func, binding, timing) => gpuTime(func, binding.numerics, timing, device()),
};
