/** Timing on the GPU (in the GPU worker process) with the manifest's time_evaluator settings, on random inputs. */
import type { PrimFunc } from "@tessera/ir";
import { type BuiltModule, build } from "@tessera/runtime";
import { gemmReluAddInputs } from "../grade/inputs.js";
import type { TimingOutcome } from "../grade/numerics-types.js";
import type { Timing } from "../manifest/index.js";
import { cudaFaultOf } from "./fault.js";
import { GemmArrays, gemmReluAddSize } from "./gemm-arrays.js";
import { messageOf } from "./messages.js";
import { releaseAll } from "./release.js";

/** The values do not change the time of a dense gemm; any fixed inputs do. */
const TIMING_SEED = 1;
const TIMING_RANGE: readonly [number, number] = [-1, 1];

/**
 * Throws an Error saying why when the schedule cannot be built or run (time numerically checked
 * schedules only); a CudaFaultError when a CUDA call failed (the worker must be replaced).
 */
export async function gpuTime(func: PrimFunc, timing: Timing, deviceName: string): Promise<TimingOutcome> {
  let mod: BuiltModule;
  try {
    mod = await build(func, "cuda", { device: "cuda" });
  } catch (err) {
    const fault = cudaFaultOf(err, "loading the kernels");
    if (fault !== undefined) throw fault;
    throw new Error(`cannot time the schedule: it does not build for the ${deviceName}: ${messageOf(err)}`, { cause: err });
  }
  let arrays: GemmArrays | undefined;
  try {
    const n = gemmReluAddSize(mod.params);
    arrays = GemmArrays.allocate(n);
    arrays.upload(gemmReluAddInputs(n, TIMING_SEED, TIMING_RANGE));
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
