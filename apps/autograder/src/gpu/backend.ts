/**
 * The grader's GPU backend: numerics at full size and timing on the local CUDA GPU (device 0),
 * run in an isolated worker process (worker/gpu-worker.ts) so that a faulting or hanging kernel
 * becomes its submission's feedback instead of breaking CUDA for the grader. Where there is no
 * usable GPU, `openGpuBackend()` says why instead, and the grader falls back to the CPU simulator.
 */
import { cuda, type DeviceInfo } from "@tessera/runtime";
import type { GpuBackend } from "../grade/numerics-types.js";
import { messageOf } from "./messages.js";
import { GpuWorker, type GpuWorkerOptions, gpuWorkerEntry } from "./worker/gpu-worker.js";
import { GpuWorkerPool, type GpuWorkerPoolOptions } from "./worker/gpu-worker-pool.js";

export type OpenGpuBackend = { readonly ok: true; readonly backend: GpuBackend } | { readonly ok: false; readonly reason: string };
export type OpenGpuWorkerPool = { readonly ok: true; readonly pool: GpuWorkerPool } | { readonly ok: false; readonly reason: string };

/** The local GPU's name, or why there is none. Probes the driver only: no CUDA context is created in the grader's process. */
function probeLocalGpu(): { ok: true; name: string } | { ok: false; reason: string } {
  if (!cuda.available()) return { ok: false, reason: `no usable CUDA GPU: ${cuda.unavailableReason() ?? "CUDA is unavailable"}` };
  let device: DeviceInfo;
  try {
    device = cuda.device(0);
  } catch (err) {
    return { ok: false, reason: `CUDA is available but device 0 cannot be opened: ${messageOf(err)}` };
  }
  return { ok: true, name: device.name };
}

/** `make()`, or why it failed (a worker entry missing from a bundle): the grader then says so and uses the simulator. */
function workerOrReason<T>(make: () => T): { ok: true; value: T } | { ok: false; reason: string } {
  try {
    return { ok: true, value: make() };
  } catch (err) {
    return { ok: false, reason: `there is a GPU, but the grader's GPU worker cannot be set up: ${messageOf(err)}` };
  }
}

/** One GPU worker for gradings one after the other (grade, batch with one job, tune). */
export function openGpuBackend(opts: GpuWorkerOptions = {}): OpenGpuBackend {
  const gpu = probeLocalGpu();
  if (!gpu.ok) return gpu;
  const made = workerOrReason(() => new GpuWorker(gpu.name, opts));
  return made.ok ? { ok: true, backend: made.value } : made;
}

/** GPU workers for gradings side by side: each grading takes `pool.lease()` and disposes it when done. */
export function openGpuWorkerPool(opts: GpuWorkerPoolOptions = {}): OpenGpuWorkerPool {
  const gpu = probeLocalGpu();
  if (!gpu.ok) return gpu;
  // The pool makes its workers lazily: resolve the entry now, so that a missing one is said here.
  const made = workerOrReason(() => {
    if (opts.childEntry === undefined) gpuWorkerEntry();
    return new GpuWorkerPool(gpu.name, opts);
  });
  return made.ok ? { ok: true, pool: made.value } : made;
}
