/**
 * Numerics on the GPU at full size (in the GPU worker process): the scheduled function is built for
 * the local GPU and run on rounds of fresh random inputs, with the output poisoned (NaN) before
 * each run, and compared element by element with the float64 reference computed on the same GPU
 * from the same device inputs.
 */
import type { PrimFunc } from "@tessera/ir";
import type { AssignmentBinding } from "@tessera/course-kit";
import { workloadSizeLabel } from "../workload-size.js";
import { type BuiltModule, build } from "@tessera/runtime";
import { compareOutput } from "../grade/compare-output.js";
import type { NumericsOutcome, NumericsRound } from "../grade/numerics-types.js";
import type { Numerics } from "../manifest/index.js";
import { type GpuStage, cudaFaultOf } from "./fault.js";
import { messageOf } from "./messages.js";
import { gpuReference } from "./reference-kernel.js";
import { releaseAll } from "./release.js";
import { WorkloadArrays, workloadSize } from "./workload-arrays.js";

/**
 * A schedule that does not build or run gives `passed: false` with `error`. A CUDA error throws a
 * CudaFaultError instead: the context is unusable afterwards, so the worker must be replaced.
 */
export async function gpuNumerics(func: PrimFunc, binding: AssignmentBinding, settings: Numerics, seed: number, deviceName: string): Promise<NumericsOutcome> {
  const workload = binding.numerics;
  const outcome = (size: number, rounds: readonly NumericsRound[], error?: string): NumericsOutcome => ({
    passed: error === undefined && rounds.length === settings.rounds && rounds.every((r) => r.mismatches === 0),
    backend: "gpu",
    device: deviceName,
    size,
    shape: workloadSizeLabel(binding, size),
    rounds,
    ...(error === undefined ? {} : { error }),
  });

  let mod: BuiltModule;
  try {
    mod = await build(func, "cuda", { device: "cuda" });
  } catch (err) {
    const fault = cudaFaultOf(err, "loading the kernels");
    if (fault !== undefined) throw fault;
    return outcome(settings.sizes.full, [], `the schedule does not build for the ${deviceName}: ${messageOf(err)}`);
  }
  const rounds: NumericsRound[] = [];
  let size = settings.sizes.full;
  // What was going on when something threw: the student's kernels, or the grader's reference.
  let stage: GpuStage = "running the kernels";
  let arrays: WorkloadArrays | undefined;
  try {
    size = workloadSize(mod.params, workload);
    arrays = WorkloadArrays.allocate(workload, size);
    const args = arrays.argsFor(mod.params);
    for (let r = 0; r < settings.rounds; r++) {
      const roundSeed = seed + r;
      stage = "running the kernels";
      arrays.upload(workload.inputs(size, roundSeed, settings.inputRange));
      arrays.poisonOutput();
      mod(...args);
      const got = arrays.readOutput();
      stage = "computing the reference";
      const reference = await gpuReference(workload.gpuReference, arrays.inputs, size);
      rounds.push(compareOutput(got, reference, size, settings, roundSeed, workload.output));
    }
  } catch (err) {
    const fault = cudaFaultOf(err, stage);
    if (fault !== undefined) throw fault;
    const what = stage === "running the kernels" ? "running the schedule" : "computing the float64 reference";
    return outcome(size, rounds, `${what} on the ${deviceName} failed: ${messageOf(err)}`);
  } finally {
    releaseAll(arrays, mod);
  }
  return outcome(size, rounds);
}
