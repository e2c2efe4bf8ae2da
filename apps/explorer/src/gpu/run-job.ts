/// <reference types="@webgpu/types" />
/**
 * Runs a worker's GpuJob on this browser's WebGPU, on the page (the student's code stays in its
 * worker, without the device): the student's kernel and the unscheduled baseline on the same inputs,
 * the kernel checked against the baseline (and the JS executor's outputs when the worker computed
 * them), both timed.
 */
import type { WgslModule } from "@tessera/codegen";
import type { TypedArray } from "@tessera/ir";
import { type HostArg, type TimingResult, loadModule } from "@tessera/webgpu";
import type { GpuJob } from "../protocol.js";
import { type GpuAdapter, openDevice } from "./adapter.js";
import { type OutputComparison, compareOutputs } from "./compare-outputs.js";

/** Timed runs per kernel, after the checked run (the warm-up): SwiftShader takes ~0.6 s per 256³ gemm. */
const TIMED_RUNS = 3;

export type GpuReport =
  | { readonly kind: "unavailable"; readonly reason: string }
  | { readonly kind: "failed"; readonly reason: string }
  | {
      readonly kind: "ran";
      readonly adapter: string;
      /** A software adapter (SwiftShader, llvmpipe): the kernels ran on the CPU. */
      readonly software: boolean;
      readonly againstBaseline: OutputComparison;
      /** Against the JS executor, or why it was not computed. */
      readonly againstExecutor: OutputComparison | string;
      readonly passed: boolean;
      readonly scheduled: TimingResult;
      readonly baseline: TimingResult;
    };

function copies(inputs: readonly TypedArray[]): TypedArray[] {
  return inputs.map((a) => a.slice()) as TypedArray[];
}

/** Runs `module` once on copies of `inputs` and returns them, then times it. */
async function runAndTime(device: GPUDevice, module: WgslModule, inputs: readonly TypedArray[]): Promise<{ outputs: TypedArray[]; timing: TimingResult }> {
  const loaded = await loadModule(device, module);
  const outputs = copies(inputs);
  await loaded.run(outputs as HostArg[]);
  const timing = await loaded.time(copies(inputs) as HostArg[], { warmup: 0, repeat: TIMED_RUNS });
  return { outputs, timing };
}

/** `gpu`: the adapter the job's WGSL was built for, or why there is none. */
export async function runGpuJob(job: GpuJob, gpu: GpuAdapter | string): Promise<GpuReport> {
  if (typeof gpu === "string") return { kind: "unavailable", reason: gpu };
  if (!job.scheduled.ok) return { kind: "failed", reason: `no WGSL for your kernel: ${job.scheduled.reason}` };
  if (!job.baseline.ok) return { kind: "failed", reason: `no WGSL for the unscheduled baseline: ${job.baseline.reason}` };
  const adapter = gpu.name;
  let device: GPUDevice;
  try {
    device = await openDevice(gpu);
  } catch (err) {
    return { kind: "unavailable", reason: `the adapter gave no device: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    const dtypes = job.scheduled.value.params.filter((p) => p.kind === "buffer").map((p) => p.dtype);
    const scheduled = await runAndTime(device, job.scheduled.value, job.inputs);
    const baseline = await runAndTime(device, job.baseline.value, job.inputs);
    const againstBaseline = compareOutputs(scheduled.outputs, baseline.outputs, dtypes);
    const againstExecutor = job.expected.ok ? compareOutputs(scheduled.outputs, job.expected.value, dtypes) : job.expected.reason;
    const passed = againstBaseline.mismatches === 0 && (typeof againstExecutor === "string" || againstExecutor.mismatches === 0);
    return { kind: "ran", adapter, software: gpu.software, againstBaseline, againstExecutor, passed, scheduled: scheduled.timing, baseline: baseline.timing };
  } catch (err) {
    return { kind: "failed", reason: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  } finally {
    device.destroy();
  }
}
