/**
 * compareWithReference remembers the executor's outputs of the last few functions (per seed):
 * a structurally equal function on the same seed reuses them, anything else runs again.
 */
import { type PrimFunc, type TypedArray, compilePrimFunc, gemmReluAdd, parsePrimFunc, printTVMScript, randomArgs } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../src/index.js";
import { referenceRun } from "../src/reference-outputs.js";
import { moduleFromLoweredScript, naiveGemmKernel } from "./helpers.js";

/** The seed's inputs with D (the output) poisoned, as compareWithReference starts. */
const start = (func: PrimFunc, seed: number): TypedArray[] => {
  const args = randomArgs(func, seed);
  args[3]!.fill(Number.NaN);
  return args;
};

/** The executor's output D on fresh arrays: what a remembered run must equal. */
const fresh = (func: PrimFunc, seed: number): TypedArray => {
  const args = start(func, seed);
  compilePrimFunc(func).run(args);
  return args[3]!;
};

/** gemm+ReLU+add's one output is D, parameter 3. */
const OUTPUTS = [3];
const run = (func: PrimFunc, seed: number) => referenceRun(func, seed, start(func, seed), OUTPUTS);

describe("the reference outputs of compareWithReference", () => {
  it("a structurally equal function on the same seed reuses the run; the caller's arrays are left as given", () => {
    const first = run(gemmReluAdd(16).func, 3);
    const given = start(gemmReluAdd(16).func, 3);
    const again = referenceRun(gemmReluAdd(16).func, 3, given, OUTPUTS);
    expect(again.outputs).toBe(first.outputs);
    expect(again.timeMs).toBe(0);
    expect(given).toEqual(start(gemmReluAdd(16).func, 3));
    expect([...again.outputs.keys()]).toEqual([3]);
    expect(again.outputs.get(3)).toEqual(fresh(gemmReluAdd(16).func, 3));
  });

  it("another seed, or a function that differs in one constant, runs again", () => {
    const func = gemmReluAdd(16).func;
    const seed3 = run(func, 3);
    const seed4 = run(func, 4);
    expect(seed4.outputs).not.toBe(seed3.outputs);
    expect(seed4.outputs.get(3)).toEqual(fresh(func, 4));
    // ReLU at 0.25 instead of 0: the same signature and names, other outputs.
    const shifted = parsePrimFunc(printTVMScript(func).replace("T.float32(0.0))", "T.float32(0.25))"));
    expect(printTVMScript(shifted)).not.toBe(printTVMScript(func));
    const other = run(shifted, 3);
    expect(other.outputs).not.toBe(seed3.outputs);
    expect(other.outputs.get(3)).toEqual(fresh(shifted, 3));
    expect(other.outputs.get(3)).not.toEqual(seed3.outputs.get(3));
  });

  it("keeps the last four functions used: a fifth one forgets the one used longest ago", () => {
    const sized = (n: number) => run(gemmReluAdd(n).func, 1).outputs;
    const eight = sized(8);
    const nine = sized(9);
    sized(10);
    sized(11);
    expect(sized(8)).toBe(eight); // 8 is now the last used, 9 the longest ago
    sized(12);
    expect(sized(8)).toBe(eight);
    const nineAgain = sized(9);
    expect(nineAgain).not.toBe(nine);
    expect(nineAgain.get(3)).toEqual(fresh(gemmReluAdd(9).func, 1));
  });

  it("a comparison against a remembered reference still finds a kernel wrong (the ReLU-shifted function)", () => {
    const module = moduleFromLoweredScript(naiveGemmKernel(32));
    const func = gemmReluAdd(32).func;
    expect(compareWithReference(module, func, { seed: 2 }).passed).toBe(true);
    const remembered = compareWithReference(module, gemmReluAdd(32).func, { seed: 2 });
    expect(remembered.passed).toBe(true);
    expect(remembered.referenceTimeMs).toBe(0);
    const shifted = parsePrimFunc(printTVMScript(func).replace("T.float32(0.0))", "T.float32(0.25))"));
    expect(compareWithReference(module, shifted, { seed: 2 }).mismatchCount).toBeGreaterThan(0);
  });
});
