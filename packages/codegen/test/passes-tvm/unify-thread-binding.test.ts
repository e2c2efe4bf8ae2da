import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { simplifyFunc, unifyThreadBinding } from "../../src/lower/passes/index.js";
import { expectSameResults, expectStructurallyEqual, parse } from "./helpers.js";

const TWO_STAGES = `
@T.prim_func
def main(A: T.Buffer((8, 64), "float32"), B: T.Buffer((8, 64), "float32"), C: T.Buffer((8, 64), "float32")):
    for row in T.thread_binding(8, thread="blockIdx.x"):
        for t0 in T.thread_binding(4, thread="threadIdx.x"):
            for k in range(16):
                B[row, t0 * 16 + k] = A[row, t0 * 16 + k] + T.float32(1)
        for t1 in T.thread_binding(4, thread="threadIdx.x"):
            for k in range(16):
                C[row, t1 * 16 + k] = B[row, t1 * 16 + k] * T.float32(2)
`;

describe("unifyThreadBinding (TVM UnifyThreadBinding)", () => {
  test("loops of one tag in a kernel become one loop around the kernel's body", () => {
    const expected = parse(`
@T.prim_func
def main(A: T.Buffer((8, 64), "float32"), B: T.Buffer((8, 64), "float32"), C: T.Buffer((8, 64), "float32")):
    for blockIdx_x in T.thread_binding(8, thread="blockIdx.x"):
        for threadIdx_x in T.thread_binding(4, thread="threadIdx.x"):
            for k in range(16):
                B[blockIdx_x, threadIdx_x * 16 + k] = A[blockIdx_x, threadIdx_x * 16 + k] + T.float32(1)
            for k in range(16):
                C[blockIdx_x, threadIdx_x * 16 + k] = B[blockIdx_x, threadIdx_x * 16 + k] * T.float32(2)
`);
    const f = parse(TWO_STAGES);
    const out = unifyThreadBinding(f);
    expectStructurallyEqual(out, expected);
    expectSameResults(out, f);
  });

  test("kernels one after the other may bind a tag with different extents", () => {
    const f = parse(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for b0 in T.thread_binding(2, thread="blockIdx.x"):
        for t0 in T.thread_binding(32, thread="threadIdx.x"):
            B[b0 * 32 + t0] = A[b0 * 32 + t0]
    for b1 in T.thread_binding(4, thread="blockIdx.x"):
        for t1 in T.thread_binding(16, thread="threadIdx.x"):
            B[b1 * 16 + t1] = B[b1 * 16 + t1] + T.float32(1)
`);
    const out = simplifyFunc(unifyThreadBinding(f));
    expectSameResults(out, f);
  });

  test("two extents for one tag in a kernel are an error naming the tag", () => {
    const f = parse(`
@T.prim_func
def main(A: T.Buffer((8, 128), "float32"), B: T.Buffer((8, 128), "float32")):
    for row in T.thread_binding(8, thread="blockIdx.x"):
        for t0 in T.thread_binding(128, thread="threadIdx.x"):
            B[row, t0] = A[row, t0]
        for t1 in T.thread_binding(64, thread="threadIdx.x"):
            B[row, t1] = A[row, t1] + T.float32(1)
`);
    expect(() => unifyThreadBinding(f)).toThrow(LoweringError);
    expect(() => unifyThreadBinding(f)).toThrow(/threadIdx\.x in a kernel need the same extent; t1 has 64, an earlier one 128/);
  });

  test("a bound loop's annotations go to a unit loop in its place", () => {
    const f = parse(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(32, thread="blockIdx.x"):
        for tx in T.thread_binding(2, thread="threadIdx.x", annotations={"pragma_note": 1}):
            B[bx * 2 + tx] = A[bx * 2 + tx]
`);
    const expected = parse(`
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for blockIdx_x in T.thread_binding(32, thread="blockIdx.x"):
        for threadIdx_x in T.thread_binding(2, thread="threadIdx.x"):
            for u in T.serial(1, annotations={"pragma_note": 1}):
                B[blockIdx_x * 2 + threadIdx_x] = A[blockIdx_x * 2 + threadIdx_x]
`);
    expectStructurallyEqual(unifyThreadBinding(f), expected);
  });
});
