/**
 * Regression (found while writing the random GPU schedule property): compareWithReference took
 * only parameters that are never loaded as outputs, so a reduction output (`C = C + A·B` after
 * `T.init`) was never compared and every matmul module passed, right or wrong.
 */
import { matmul } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { compareWithReference } from "../src/index.js";
import { moduleFromLoweredScript } from "./helpers.js";

/** C = A·B at 8×8×8, one thread per element; `scale` 1 is right, anything else is wrong. */
function matmulKernel(scale: number): string {
  return `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "matmul", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 8)
    threadIdx_x = T.launch_thread("threadIdx.x", 8)
    C[blockIdx_x * 8 + threadIdx_x] = T.float32(0)
    for k in range(8):
        C[blockIdx_x * 8 + threadIdx_x] = C[blockIdx_x * 8 + threadIdx_x] + A[blockIdx_x * 8 + k] * B[k * 8 + threadIdx_x] * T.float32(${scale})
`;
}

describe("compareWithReference on reduction outputs", () => {
  it("compares the reduction output C of a matmul", () => {
    const report = compareWithReference(moduleFromLoweredScript(matmulKernel(1)), matmul(8, 8, 8).func, { seed: 1 });
    expect(report.outputs.map((o) => o.buffer)).toEqual(["C"]);
    expect(report.passed).toBe(true);
  });

  it("fails a matmul kernel that computes the wrong C", () => {
    const report = compareWithReference(moduleFromLoweredScript(matmulKernel(2)), matmul(8, 8, 8).func, { seed: 1 });
    expect(report.passed).toBe(false);
    expect(report.outputs[0]?.mismatchCount).toBeGreaterThan(0);
  });
});
