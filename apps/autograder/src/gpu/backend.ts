/**
 * The grader's GPU backend: numerics at full size and timing on the local CUDA GPU (device 0),
 * run in an isolated worker process (worker/gpu-worker.ts) so that a faulting or hanging kernel
 * becomes its submission's feedback instead of breaking CUDA for the grader. Where there is no
 * usable GPU, `openGpuBackend()` says why instead, and the grader falls back to the CPU simulator.
 */
import { cuda, type DeviceInfo } from "@tessera/runtime";
import type { GpuBackend } from "../grade/numerics-types.js";
import { messageOf } from "./messages.js";
import { GpuWorker, type GpuWorkerOptions } from "./worker/gpu-worker.js";

export type OpenGpuBackend = { readonly ok: true; readonly backend: GpuBackend } | { readonly ok: false; readonly reason: string };

/** Probes the driver here (no CUDA context is created in the grader's process); the worker opens the device. */
export function openGpuBackend(opts: GpuWorkerOptions = {}): OpenGpuBackend {
  if (!cuda.available()) return { ok: false, reason: `no usable CUDA GPU: ${cuda.unavailableReason() ?? "CUDA is unavailable"}` };
  let device: DeviceInfo;
  try {
    device = cuda.device(0);
  } catch (err) {
    return { ok: false, reason: `CUDA is available but device 0 cannot be opened: ${messageOf(err)}` };
  }
  return { ok: true, backend: new GpuWorker(device.name, opts) };
}
