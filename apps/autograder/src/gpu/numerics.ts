/**
 * Numerics on the GPU at full size (in the GPU worker process): the scheduled function is built for
 * the local GPU and run on rounds of fresh random inputs, with the output poisoned (NaN) before
 * each run, and compared element by element with the float64 reference computed on the same GPU
 * from the same device inputs.
 */
import type { PrimFunc } from "@tessera/ir";
import { type BuiltModule, build, gemmReluAddReference } from "@tessera/runtime";
import { compareOutput, gemmReluAddInputs } from "../grade/inputs.js";
import type { NumericsOutcome, NumericsRound } from "../grade/numerics-types.js";
import type { Numerics } from "../manifest/index.js";
import { type GpuStage, cudaFaultOf } from "./fault.js";
import { GemmArrays, gemmReluAddSize } from "./gemm-arrays.js";
import { messageOf } from "./messages.js";
import { releaseAll } from "./release.js";

/**
 * A schedule that does not build or run gives `passed: false` with `error`. A CUDA error throws a
 * CudaFaultError instead: the context is unusable afterwards, so the worker must be replaced.
 */
export async function gpuNumerics(func: PrimFunc, settings: Numerics, seed: number, deviceName: string): Promise<NumericsOutcome> {
  const outcome = (size: number, rounds: readonly NumericsRound[], error?: string): NumericsOutcome => ({
    passed: error === undefined && rounds.length === settings.rounds && rounds.every((r) => r.mismatches === 0),
    backend: "gpu",
    device: deviceName,
    size,
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
  let arrays: GemmArrays | undefined;
  try {
    size = gemmReluAddSize(mod.params);
    arrays = GemmArrays.allocate(size);
    const args = arrays.argsFor(mod.params);
    for (let r = 0; r < settings.rounds; r++) {
      const roundSeed = seed + r;
      stage = "running the kernels";
      arrays.upload(gemmReluAddInputs(size, roundSeed, settings.inputRange));
      arrays.poisonOutput();
      mod(...args);
      const got = arrays.readOutput();
      stage = "computing the reference";
      const reference = await gemmReluAddReference(arrays.A, arrays.B, arrays.C, size);
      rounds.push(compareOutput(got, reference, size, settings, roundSeed));
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
