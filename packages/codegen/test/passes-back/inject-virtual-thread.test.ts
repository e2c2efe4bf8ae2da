import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { LoweringError } from "../../src/lower/errors.js";
import { injectVirtualThreadPass } from "../../src/lower/passes/inject-virtual-thread.js";
import { CTX, errorOf, expectSameResults, expectScript, parse, print, runPass } from "./helpers.js";

function func(vthreads: number, threads: number, body: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main"})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", ${threads})
    vthread_x = T.launch_thread("vthread.x", ${vthreads})
${body.replace(/^\n+/, "").replace(/^/gm, "    ")}
`;
}

describe("injectVirtualThread", () => {
  test("a virtual thread becomes a serial loop inside each thread", () => {
    const after = runPass(injectVirtualThreadPass, func(2, 4, `B[blockIdx_x * 32 + vthread_x * 4 + threadIdx_x] = A[blockIdx_x * 32 + vthread_x * 4 + threadIdx_x] * T.float32(3)`));
    expectScript(
      after,
      `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    T.func_attr({"global_symbol": "main"})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
    for vthread_x in range(2):
        B[blockIdx_x * 32 + vthread_x * 4 + threadIdx_x] = A[blockIdx_x * 32 + vthread_x * 4 + threadIdx_x] * T.float32(3)`,
    );
    expect(print(after)).not.toContain("launch_thread(\"vthread");
  });

  test("a barrier inside a virtual thread is rejected", () => {
    const err = errorOf(
      () => runPass(injectVirtualThreadPass, func(2, 4, `B[vthread_x * 4 + threadIdx_x] = A[threadIdx_x]\nT.tvm_storage_sync("shared")`)),
      LoweringError,
    );
    expect(err.message).toBe(
      "injectVirtualThread: virtual thread vthread.x contains a barrier (T.tvm_storage_sync); virtual threads run one after another inside a thread, so a barrier between them cannot synchronise: bind the loop to threadIdx instead of vthread.x",
    );
  });

  test("property: the serial loops compute what the virtual threads computed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 999 }), (vt, tx, seed) => {
        const original = parse(
          func(vt, tx, `B[(blockIdx_x * ${vt * tx} + vthread_x * ${tx} + threadIdx_x) % 64] = A[(vthread_x * 7 + threadIdx_x * 3) % 64] + B[(blockIdx_x * ${vt * tx} + vthread_x * ${tx} + threadIdx_x) % 64]`),
        );
        expectSameResults(injectVirtualThreadPass.run(original, CTX), original, seed);
      }),
      { numRuns: 30 },
    );
  });
});
