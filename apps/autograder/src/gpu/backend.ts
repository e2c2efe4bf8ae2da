/**
 * The grader's GPU backend: numerics at full size and timing on the local CUDA GPU (device 0),
 * through @tessera/runtime. Where there is no usable GPU, `openGpuBackend()` says why instead, and
 * the grader falls back to the CPU simulator.
 */
import { cuda, disposeGemmReluAddReference, type DeviceInfo } from "@tessera/runtime";
import type { GpuBackend } from "../grade/numerics-types.js";
import { gpuKeyFor } from "./gpu-key.js";
import { messageOf } from "./messages.js";
import { gpuNumerics } from "./numerics.js";
import { gpuTime } from "./timing.js";

export type OpenGpuBackend = { readonly ok: true; readonly backend: GpuBackend } | { readonly ok: false; readonly reason: string };

export function openGpuBackend(): OpenGpuBackend {
  if (!cuda.available()) return { ok: false, reason: `no usable CUDA GPU: ${cuda.unavailableReason() ?? "CUDA is unavailable"}` };
  let device: DeviceInfo;
  try {
    device = cuda.device(0);
  } catch (err) {
    return { ok: false, reason: `CUDA is available but device 0 cannot be opened: ${messageOf(err)}` };
  }
  const name = device.name;
  let disposed = false;
  const live = (call: string): void => {
    if (disposed) throw new Error(`GpuBackend.${call}: the GPU backend was disposed`);
  };
  const backend: GpuBackend = {
    name,
    key: gpuKeyFor(name),
    async numerics(req) {
      live("numerics");
      return gpuNumerics(req, name);
    },
    async time(schedule, timing) {
      live("time");
      return gpuTime(schedule, timing, name);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      disposeGemmReluAddReference();
    },
  };
  return { ok: true, backend };
}
