/** Timing on the GPU (in the GPU worker process) with the manifest's time_evaluator settings, on random inputs. */
import type { WorkloadNumerics } from "@tessera/course-kit";
import type { PrimFunc } from "@tessera/ir";
import { type BuiltModule, build } from "@tessera/runtime";
import type { TimingOutcome } from "../grade/numerics-types.js";
import type { Timing } from "../manifest/index.js";
import { cudaFaultOf } from "./fault.js";
import { messageOf } from "./messages.js";
import { releaseAll } from "./release.js";
import { WorkloadArrays, workloadSize } from "./workload-arrays.js";

/** The values do not change the time of a dense kernel; any fixed inputs do. */
const TIMING_SEED = 1;
const TIMING_RANGE: readonly [number, number] = [-1, 1];

/**
 * Throws an Error saying why when the schedule cannot be built or run (time numerically checked
 * schedules only); a CudaFaultError when a CUDA call failed (the worker must be replaced).
 */
export async function gpuTime(func: PrimFunc, workload: WorkloadNumerics, timing: Timing, deviceName: string): Promise<TimingOutcome> {
  let mod: BuiltModule;
  try {
    mod = await build(func, "cuda", { device: "cuda" });
  } catch (err) {
    const fault = cudaFaultOf(err, "loading the kernels");
    if (fault !== undefined) throw fault;
    throw new Error(`cannot time the schedule: it does not build for the ${deviceName}: ${messageOf(err)}`, { cause: err });
  }
  let arrays: WorkloadArrays | undefined;
  try {
    const n = workloadSize(mod.params, workload);
    arrays = WorkloadArrays.allocate(workload, n);
    arrays.upload(workload.inputs(n, TIMING_SEED, TIMING_RANGE));
    const timer = mod.timeEvaluator({ number: timing.number, repeat: timing.repeat, minRepeatMs: timing.minRepeatMs });
    const t = await timer(...arrays.argsFor(mod.params));
    return { meanMs: t.mean, medianMs: t.median, minMs: t.min, maxMs: t.max, stdMs: t.std, repeats: t.repeat, number: t.number, device: deviceName };
  } catch (err) {
    const fault = cudaFaultOf(err, "timing the kernels");
    if (fault !== undefined) throw fault;
    throw new Error(`timing the schedule on the ${deviceName} failed: ${messageOf(err)}`, { cause: err });
  } finally {
    releaseAll(arrays, mod);
  }
}
