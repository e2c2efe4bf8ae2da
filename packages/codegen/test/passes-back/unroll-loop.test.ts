import { type PrimFunc, add, bufferLoad, bufferStore, declBuffer, forEachStmt, forLoop, mul, primFunc, ramp, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { unrollLoopPass } from "../../src/lower/passes/unroll-loop.js";
import { CTX, expectSameResults, expectScript, parse, print, runPass } from "./helpers.js";

function func(body: string): string {
  return `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), n: T.int32):
    T.func_attr({"global_symbol": "main"})
    threadIdx_x = T.launch_thread("threadIdx.x", 4)
${body.replace(/^\n+/, "").replace(/^/gm, "    ")}
`;
}

function loopKinds(f: PrimFunc): string[] {
  const kinds: string[] = [];
  forEachStmt(f.body, (s) => {
    if (s.kind === "For") kinds.push(s.forKind);
  });
  return kinds;
}

describe("unrollLoop", () => {
  test("a small unrolled loop is expanded, its variable replaced by each constant", () => {
    const after = runPass(
      unrollLoopPass,
      func(`
for u in T.unroll(4):
    B[threadIdx_x * 4 + u] = A[threadIdx_x * 4 + u] + T.float32(1)`),
    );
    expectScript(
      after,
      func(`
B[threadIdx_x * 4] = A[threadIdx_x * 4] + T.float32(1)
B[threadIdx_x * 4 + 1] = A[threadIdx_x * 4 + 1] + T.float32(1)
B[threadIdx_x * 4 + 2] = A[threadIdx_x * 4 + 2] + T.float32(1)
B[threadIdx_x * 4 + 3] = A[threadIdx_x * 4 + 3] + T.float32(1)`),
    );
  });

  test("vector indices: a Ramp's base and a Ramp's stride that mention the variable are both replaced", () => {
    // Regression: copies once fixed only the base, leaving the loop variable in the stride.
    // (Built directly: TVMScript has no way to write a Ramp of symbolic stride.)
    const A = declBuffer("A", [64]);
    const B = declBuffer("B", [64]);
    const u = variable("u");
    const store = bufferStore(B, bufferLoad(A, [ramp(mul(u, 16), 1, 4)]), [ramp(mul(u, 32), add(u, 4), 4)]);
    const before = primFunc([A.data, B.data], new Map([[A.data, A], [B.data, B]]), forLoop(u, 2, store, { kind: "unrolled" }));
    const after = runPass(unrollLoopPass, before);
    expect(print(after).split("\n").filter((l) => l.includes("B["))).toEqual([
      "    B[0:16:4] = A[0:4]",
      "    B[32:52:5] = A[16:20]",
    ]);
    expectSameResults(after, before);
  });

  test("nested serial loops are repeated with the body; serial loops themselves are not unrolled", () => {
    const after = runPass(
      unrollLoopPass,
      func(`
for u in T.unroll(2):
    for j in range(3):
        B[u * 8 + j] = A[j]`),
    );
    expect(loopKinds(after)).toEqual(["serial", "serial"]);
  });

  describe("stays a loop of kind unrolled (#pragma unroll)", () => {
    const cases: Record<string, string> = {
      "more than 512 statements once expanded (64 × 16)": `
for u in T.unroll(64):
    for j in range(16):
        B[j] = A[u]`,
      "a symbolic extent": `
for u in T.unroll(n):
    B[u % 64] = A[u % 64]`,
      "a body that allocates storage": `
for u in T.unroll(2):
    t = T.allocate([1], "float32", "local")
    t_1 = T.Buffer((1,), data=t, scope="local")
    t_1[0] = A[u]
    B[u] = t_1[0]`,
    };
    for (const [what, body] of Object.entries(cases)) {
      test(what, () => {
        const f = parse(func(body));
        const after = unrollLoopPass.run(f, CTX);
        expect(loopKinds(after)[0]).toBe("unrolled");
        expect(after).toBe(f);
      });
    }
  });

  test("property: expansion preserves sequential results", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 0, max: 999 }), (min, extent, seed) => {
        const original = parse(
          func(`
for u in T.unroll(${min}, ${min + extent}):
    B[(threadIdx_x * 8 + u) % 64] = B[(threadIdx_x * 8 + u + 1) % 64] + A[u * 3 % 64]
    if u % 2 == 0:
        B[u] = B[u] * T.float32(2)`),
        );
        const after = unrollLoopPass.run(original, CTX);
        expect(loopKinds(after)).toEqual([]);
        expectSameResults(after, original, seed);
      }),
      { numRuns: 30 },
    );
  });
});
