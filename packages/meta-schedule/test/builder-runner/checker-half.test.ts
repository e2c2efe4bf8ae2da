/**
 * The reference checker on a workload with float16 arguments (`halfOutputGemm`): the runner draws
 * and uploads them as bit patterns (Uint16Array) and digests the device's outputs as values, so the
 * CPU reference must run the executor on the values. Regression: the executor refused the bit
 * patterns ("expected a Float32Array for buffer float16"), and every candidate of an fp16 workload
 * failed its reference check (found on an H200 by ms-gpu-space-check, session 19).
 */
import { halfOutputGemm } from "@tessera/corpus";
import { decodeHalfArray, roundToFloat16 } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { type BuiltArtifact, argsInfoOf, referenceChecker } from "../../src/index.js";
import { cpuReference } from "../../src/runner/checker.js";
import { digestOf } from "../../src/runner/output-digest.js";
import { randomArgsFor } from "../../src/runner/random-args.js";

const N = 16;

describe("referenceChecker(cpuReference(func)) with float16 arguments", () => {
  const func = halfOutputGemm(N);
  const argsInfo = argsInfoOf(func);
  const inputs = randomArgsFor(argsInfo, 3);
  const [a, b] = [decodeHalfArray("float16", inputs[0] as Uint16Array), decodeHalfArray("float16", inputs[1] as Uint16Array)];
  // What a correct device computes, independently of the executor: each sum in float64, rounded once to float16.
  const d = new Float32Array(N * N);
  for (let i = 0; i < N; i++)
    for (let j = 0; j < N; j++) {
      let sum = 0;
      for (let k = 0; k < N; k++) sum += a[i * N + k]! * b[k * N + j]!;
      d[i * N + j] = roundToFloat16(sum);
    }
  const artifact: BuiltArtifact = { name: "device", source: "", kernels: [] };
  const check = (output: Float32Array) =>
    referenceChecker(cpuReference(func)).check(
      [a, b, output].map((x) => digestOf(x, "all")),
      inputs,
      { artifact, argsInfo },
    );

  it("accepts the device's values and names an element that differs", () => {
    expect(inputs[0]).toBeInstanceOf(Uint16Array);
    expect(check(d)).toBeUndefined();
    const wrong = d.slice();
    wrong[37] = wrong[37]! + 0.25;
    expect(check(wrong)).toMatch(/^argument 2, element 37: /);
  });
});
