/**
 * Bit operations, `rsqrt`, `likely` and `assume` compiled by the C target agree with the JS
 * executor on random inputs (the C and CUDA generators share their spelling; the CUDA side is
 * checked by nvcc in packages/codegen/test/cuda/intrinsics-nvcc.test.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePrimFunc, parsePrimFunc, type TypedArray } from "@tessera/ir";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { cTargetUnavailable } from "./support/c-target-available.js";
import { build } from "@tessera/runtime";

const cacheDir = mkdtempSync(join(tmpdir(), "tessera-c-intrinsics-"));
afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));

const unavailable = cTargetUnavailable();
/** Diagnostics print only with TESSERA_TEST_VERBOSE=1 (README, Testing). */
const VERBOSE = process.env.TESSERA_TEST_VERBOSE === "1";
if (unavailable !== undefined && VERBOSE) console.warn(`C intrinsic tests skipped: ${unavailable}`);

const N = 64;

const bitOps = parsePrimFunc(`
@T.prim_func
def bit_ops(A: T.Buffer((${N},), "int32"), B: T.Buffer((${N},), "int32"), D: T.Buffer((${N},), "int32")):
    T.func_attr({"global_symbol": "bit_ops"})
    for i in range(${N}):
        with T.block("D"):
            vi = T.axis.spatial(${N}, i)
            D[vi] = T.bitwise_xor(T.shift_left(A[vi], T.bitwise_and(B[vi], 7)), T.shift_right(A[vi], 3)) | T.bitwise_not(B[vi])
`);

const floatOps = parsePrimFunc(`
@T.prim_func
def float_ops(A: T.Buffer((${N},), "float32"), D: T.Buffer((${N},), "float32")):
    T.func_attr({"global_symbol": "float_ops"})
    for i in range(${N}):
        with T.block("D"):
            vi = T.axis.spatial(${N}, i)
            T.evaluate(T.assume(vi < ${N}))
            D[vi] = T.if_then_else(T.likely(A[vi] > T.float32(1)), T.rsqrt(A[vi]), A[vi] * T.float32(2))
`);

async function runBoth(func: typeof bitOps, inputs: TypedArray[], output: TypedArray): Promise<[TypedArray, TypedArray]> {
  const expected = output.slice();
  compilePrimFunc(func).run([...inputs, expected]);
  const actual = output.slice();
  const mod = await build(func, "c", { cacheDir });
  try {
    mod(...inputs, actual);
  } finally {
    mod.dispose();
  }
  return [actual, expected];
}

describe.skipIf(unavailable !== undefined)("C target: intrinsics match the executor", () => {
  it("shifts, and, or, xor and not on int32 (negative values included)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer(), { minLength: N, maxLength: N }), fc.array(fc.integer(), { minLength: N, maxLength: N }), async (a, b) => {
        const [actual, expected] = await runBoth(bitOps, [Int32Array.from(a), Int32Array.from(b)], new Int32Array(N));
        expect(Array.from(actual)).toEqual(Array.from(expected));
      }),
      { numRuns: 5 },
    );
  });

  it("rsqrt under a likely() condition, with an assume() that computes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.float({ min: Math.fround(0.01), max: 100, noNaN: true }), { minLength: N, maxLength: N }), async (a) => {
        const [actual, expected] = await runBoth(floatOps, [Float32Array.from(a)], new Float32Array(N));
        for (let i = 0; i < N; i++) expect(actual[i]!).toBeCloseTo(expected[i]!, 5);
      }),
      { numRuns: 5 },
    );
  });
});
