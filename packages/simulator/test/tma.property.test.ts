/**
 * TMA loads in the simulator against the sequential executor: on random 2-D tensors (fp16 or fp32,
 * a few rows and columns), random boxes (rows of exactly the swizzle span, or any multiple of 16
 * bytes without swizzle) at random coordinates, partly or wholly outside the tensor, one thread
 * loads the box into shared memory and every thread of the warp, after waiting for the mbarrier,
 * reads it back un-swizzled. The simulator must give the executor's bits of "the box, zeros
 * outside the tensor" exactly when the readers wait; without the wait it must refuse the kernel or
 * give other bits — never pass.
 */
import { cudaTarget, moduleFromKernelFunc } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulationError, compareWithReference } from "../src/index.js";

const H100 = cudaTarget("nvidia/h100");

interface Case {
  readonly dtype: "float16" | "float32";
  readonly rows: number;
  readonly cols: number;
  readonly boxRows: number;
  readonly boxCols: number;
  readonly swizzle: 0 | 32 | 64 | 128;
  readonly r0: number;
  readonly c0: number;
  readonly wait: boolean;
}

const bytesOf = (dtype: Case["dtype"]) => (dtype === "float16" ? 2 : 4);

/** The kernel: thread 0 loads the box, all 32 threads wait (unless `wait` is false) and copy it out un-swizzled. */
function kernelScript(c: Case): string {
  const eb = bytesOf(c.dtype);
  const box = c.boxRows * c.boxCols;
  const bar = 'T.tvm_access_ptr(T.type_annotation("uint64"), bars, 0, 1, 3)';
  const e = "(i * 32 + threadIdx_x)";
  const at = c.swizzle === 0 ? e : `T.bitwise_xor(${e} * ${eb}, ${e} * ${eb} // 128 % ${c.swizzle / 16} * 16) // ${eb}`;
  return `@T.prim_func
def main(A: T.Buffer((${c.rows}, ${c.cols}), "${c.dtype}"), Out: T.Buffer((${box},), "${c.dtype}")):
    T.func_attr({"global_symbol": "tma_box", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    tile = T.allocate([${box}], "${c.dtype}", "shared.dyn")
    tile_1 = T.Buffer((${box},), "${c.dtype}", data=tile, scope="shared.dyn")
    bars = T.allocate([1], "uint64", "shared")
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    if threadIdx_x == 0:
        T.ptx.mbarrier_init(${bar}, 1)
    T.tvm_storage_sync("shared")
    if threadIdx_x == 0:
        T.ptx.mbarrier_arrive_expect_tx(${bar}, ${box * eb})
        T.ptx.cp_async_bulk_tensor_2d(T.tvm_access_ptr(T.type_annotation("${c.dtype}"), tile, 0, ${box}, 2), A.data, ${c.boxCols}, ${c.boxRows}, ${c.swizzle}, ${c.c0}, ${c.r0}, ${bar})
${c.wait ? `    T.ptx.mbarrier_wait_parity(${bar}, 0)\n` : ""}    for i in range(${Math.ceil(box / 32)}):
        if ${e} < ${box}:
            Out[${e}] = tile_1[${at}]
`;
}

/** What the load computes: the box, zeros outside the tensor. */
function referenceScript(c: Case): string {
  const inside = `${c.r0} + r >= 0 and ${c.r0} + r < ${c.rows} and ${c.c0} + k >= 0 and ${c.c0} + k < ${c.cols}`;
  const clamped = `A[T.max(T.min(${c.r0} + r, ${c.rows - 1}), 0), T.max(T.min(${c.c0} + k, ${c.cols - 1}), 0)]`;
  return `@T.prim_func
def main(A: T.Buffer((${c.rows}, ${c.cols}), "${c.dtype}"), Out: T.Buffer((${c.boxRows * c.boxCols},), "${c.dtype}")):
    T.func_attr({"global_symbol": "tma_box"})
    for r, k in T.grid(${c.boxRows}, ${c.boxCols}):
        Out[r * ${c.boxCols} + k] = T.if_then_else(${inside}, ${clamped}, T.${c.dtype}(0))
`;
}

/** true: the executor's bits, no race, no uninitialised read; otherwise why not. */
function verdict(c: Case): true | string {
  const module = moduleFromKernelFunc(parsePrimFunc(kernelScript(c)), { target: H100 });
  try {
    const r = compareWithReference(module, parsePrimFunc(referenceScript(c)), { seed: 11, rtol: 0, atol: 0 });
    const exact = r.passed && r.maxAbsError === 0 && r.simulation.raceCount === 0 && r.simulation.uninitializedReadCount === 0;
    return exact ? true : `${r.mismatchCount} wrong elements, ${r.simulation.uninitializedReadCount} uninitialised reads`;
  } catch (err) {
    if (err instanceof SimulationError) return err.message;
    throw err;
  }
}

const cases: fc.Arbitrary<Case> = fc
  .record({
    dtype: fc.constantFrom<Case["dtype"]>("float16", "float32"),
    rows: fc.integer({ min: 1, max: 20 }),
    colChunks: fc.integer({ min: 1, max: 5 }),
    boxRows: fc.integer({ min: 1, max: 12 }),
    swizzle: fc.constantFrom<Case["swizzle"]>(0, 32, 64, 128),
    boxChunks: fc.integer({ min: 1, max: 4 }),
    r: fc.double({ min: -1, max: 1, noNaN: true }),
    k: fc.double({ min: -1, max: 1, noNaN: true }),
    wait: fc.boolean(),
  })
  .map(({ dtype, rows, colChunks, boxRows, swizzle, boxChunks, r, k, wait }) => {
    const perChunk = 16 / bytesOf(dtype);
    const cols = colChunks * perChunk;
    // A swizzled box's row is exactly the span; an unswizzled one any number of 16-byte chunks.
    const boxCols = swizzle === 0 ? boxChunks * perChunk : swizzle / bytesOf(dtype);
    // Coordinates from a box wholly before the tensor to one wholly after it.
    const r0 = Math.round(r * (rows + boxRows));
    const c0 = Math.round(k * (cols + boxCols));
    return { dtype, rows, cols, boxRows, boxCols, swizzle, r0, c0, wait };
  });

describe("TMA loads: the simulator places boxes as the executor's reference says, and only after the wait", () => {
  it("the box (zeros outside the tensor) ⇔ the readers wait for the transaction count", () => {
    fc.assert(
      fc.property(cases, (c) => {
        const v = verdict(c);
        expect(v === true, `${JSON.stringify(c)}: ${v}`).toBe(c.wait);
      }),
      { numRuns: 40, seed: 15 },
    );
  }, 120_000);

  // The documented patterns (CUTLASS's Swizzle<3,4,3>, <2,4,3>, <1,4,3>), written per row and
  // 16-byte chunk rather than as the byte-offset XOR the simulator uses.
  const patterns = [
    { swizzle: 128, cols: 64, chunk: "T.bitwise_xor(k // 8, r % 8)", what: "row r's chunk c at c ^ (r % 8)" },
    { swizzle: 64, cols: 32, chunk: "T.bitwise_xor(k // 8, r // 2 % 4)", what: "row r's chunk c at c ^ (r / 2 % 4)" },
    { swizzle: 32, cols: 16, chunk: "T.bitwise_xor(k // 8, r // 4 % 2)", what: "row r's chunk c at c ^ (r / 4 % 2)" },
  ] as const;
  for (const p of patterns) {
    it(`a box of fp16 rows of ${p.swizzle} bytes lands with ${p.what}`, () => {
      const c: Case = { dtype: "float16", rows: 16, cols: p.cols, boxRows: 16, boxCols: p.cols, swizzle: p.swizzle, r0: 0, c0: 0, wait: true };
      const [r, k] = [`(i * 32 + threadIdx_x) // ${p.cols}`, `(i * 32 + threadIdx_x) % ${p.cols}`];
      const chunk = p.chunk.replaceAll(/\br\b/g, `(${r})`).replaceAll(/\bk\b/g, `(${k})`);
      const script = kernelScript(c).replace(/tile_1\[.*\]\n/, `tile_1[${r} * ${p.cols} + ${chunk} * 8 + ${k} % 8]\n`);
      expect(script).not.toBe(kernelScript(c));
      const module = moduleFromKernelFunc(parsePrimFunc(script), { target: H100 });
      const report = compareWithReference(module, parsePrimFunc(referenceScript(c)), { seed: 11, rtol: 0, atol: 0 });
      expect(report.mismatchCount).toBe(0);
      expect(report.passed).toBe(true);
    });
  }
});
