/**
 * Numerics on the GPU at full size: the schedule is built for the local GPU and run on rounds of
 * fresh random inputs, with the output poisoned (NaN) before each run, and compared element by
 * element with the float64 reference computed on the same GPU from the same device inputs.
 */
import { type BuiltModule, build, gemmReluAddReference } from "@tessera/runtime";
import { compareOutput, gemmReluAddInputs } from "../grade/inputs.js";
import type { NumericsOutcome, NumericsRequest, NumericsRound } from "../grade/numerics-types.js";
import { GemmArrays, gemmReluAddSize } from "./gemm-arrays.js";
import { messageOf } from "./messages.js";
import { releaseAll } from "./release.js";

/** Never throws: a schedule that does not build or run gives `passed: false` with `error`. */
export async function gpuNumerics(req: NumericsRequest, deviceName: string): Promise<NumericsOutcome> {
  const { settings } = req;
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
    mod = await build(req.schedule, "cuda", { device: "cuda" });
  } catch (err) {
    return outcome(settings.sizes.full, [], `the schedule does not build for the ${deviceName}: ${messageOf(err)}`);
  }
  const rounds: NumericsRound[] = [];
  let size = settings.sizes.full;
  // What was going on when something threw: the student's kernels, or the grader's reference.
  let stage = "running the schedule";
  let arrays: GemmArrays | undefined;
  try {
    size = gemmReluAddSize(mod.params);
    arrays = GemmArrays.allocate(size);
    const args = arrays.argsFor(mod.params);
    for (let r = 0; r < settings.rounds; r++) {
      const seed = req.seed + r;
      stage = "running the schedule";
      arrays.upload(gemmReluAddInputs(size, seed, settings.inputRange));
      arrays.poisonOutput();
      mod(...args);
      const got = arrays.readOutput();
      stage = "computing the float64 reference";
      const reference = await gemmReluAddReference(arrays.A, arrays.B, arrays.C, size);
      rounds.push(compareOutput(got, reference, size, settings, seed));
    }
  } catch (err) {
    return outcome(size, rounds, `${stage} on the ${deviceName} failed: ${messageOf(err)}`);
  } finally {
    releaseAll(arrays, mod);
  }
  return outcome(size, rounds);
}
