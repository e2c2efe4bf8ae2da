/**
 * Misused WMMA intrinsics are simulator findings with the kernel, block and warp, not crashes:
 * lanes of a warp that diverge around a warp-collective call or pass it different arguments,
 * fragments of the wrong role or shape, tiles outside their buffer; and the fragment operations
 * themselves (column-major loads, an fp16 accumulator) against hand-computed results.
 */
import { describe, expect, it } from "vitest";
import { FragmentMisuseError, SimulationError, WarpDivergenceError, simulate } from "../../src/index.js";
import { moduleFromLoweredScript } from "../helpers.js";

/** One block of `threads` threadIdx.x, A (16×16 fp16) and C (16×16 fp32) global, fragments F (a), G (b), H (accumulator). */
function kernel(body: string, threads = 32): string {
  const indented = body.replace(/^\n+/, "").replace(/^/gm, "    ");
  return `
@T.prim_func
def main(A: T.Buffer((256,), "float16"), C: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "main"})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    threadIdx_x = T.launch_thread("threadIdx.x", ${threads})
    F = T.allocate([256], "float16", "wmma.matrix_a")
    G = T.allocate([256], "float16", "wmma.matrix_b")
    H = T.allocate([256], "float32", "wmma.accumulator")
${indented}
`;
}

const LOAD_A = (layout = "row_major") =>
  `T.tvm_load_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), A.data, 0, 256, 1), 16, "${layout}")`;
const LOAD_B = `T.tvm_load_matrix_sync(G, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), A.data, 0, 256, 1), 16, "row_major")`;
const STORE = `T.tvm_store_matrix_sync(H, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), C.data, 0, 256, 2), 16, "row_major")`;
const MMA = "T.tvm_mma_sync(H, 0, F, 0, G, 0, H, 0)";

function run(body: string, threads = 32): { a: Float32Array; c: Float32Array } {
  const a = Float32Array.from({ length: 256 }, (_, i) => (i % 7) - 3 + (i % 3) * 0.5);
  const c = new Float32Array(256).fill(Number.NaN);
  simulate(moduleFromLoweredScript(kernel(body, threads)), [a, c]);
  return { a, c };
}

function thrown(body: string, threads = 32): Error {
  try {
    run(body, threads);
  } catch (e) {
    if (e instanceof Error) return e;
  }
  throw new Error("the simulation did not fail");
}

describe("WMMA fragment operations", () => {
  it("fill, load, mma and store give A·A (row-major) plus the filled value", () => {
    const { a, c } = run(`T.tvm_fill_fragment(H, 16, 16, 16, 0, T.float32(1))\n${LOAD_A()}\n${LOAD_B}\n${MMA}\n${STORE}`);
    for (const [r, col] of [
      [0, 0],
      [3, 9],
      [15, 15],
    ] as const) {
      let sum = 1;
      for (let k = 0; k < 16; k++) sum = Math.fround(sum + a[r * 16 + k]! * a[k * 16 + col]!);
      expect(c[r * 16 + col]).toBe(sum);
    }
  });

  it("calls inside loops (which the simulator outlines) in a kernel that binds only threadIdx.x", () => {
    // Regression: outlined loops referred to threadIdx.y and .z, which such a kernel does not define.
    const { c } = run(`for f in range(1):\n    T.tvm_fill_fragment(H, 16, 16, 16, f, T.float32(2))\n${STORE}`);
    expect(c.every((x) => x === 2)).toBe(true);
  });

  it("a column-major load of A reads its transpose", () => {
    const { a, c } = run(`T.tvm_fill_fragment(H, 16, 16, 16, 0, T.float32(0))\n${LOAD_A("col_major")}\n${LOAD_B}\n${MMA}\n${STORE}`);
    let sum = 0;
    for (let k = 0; k < 16; k++) sum = Math.fround(sum + a[k * 16 + 2]! * a[k * 16 + 5]!);
    expect(c[2 * 16 + 5]).toBe(sum);
  });
});

/** A misused kernel body, the error class the simulator must raise and what its message must say. */
const MISUSES: readonly (readonly [what: string, body: string, error: typeof SimulationError, says: string])[] = [
  [
    "lanes of a warp diverging around a call",
    "if threadIdx_x < 16:\n    T.tvm_fill_fragment(H, 16, 16, 16, 0, T.float32(0))",
    WarpDivergenceError,
    "kernel kernel_kernel, block (0, 0, 0), warp 0: 16 of its 32 lanes executed T.tvm_fill_fragment(H, 16, 16, 16, 0, T.float32(0.0)); lane 16 did not",
  ],
  [
    "lanes of a warp passing different arguments",
    'T.tvm_fill_fragment(H, 16, 16, 16, 0, T.Cast("float32", threadIdx_x))',
    WarpDivergenceError,
    "lane 1 passed 1 as argument 2 of T.tvm_fill_fragment(",
  ],
  [
    "lanes of a warp at different calls",
    `if threadIdx_x < 8:\n    ${LOAD_A()}\nelse:\n    ${LOAD_B}`,
    WarpDivergenceError,
    "lane 8 executed T.tvm_load_matrix_sync(G",
  ],
  [
    "an accumulator of another shape than the operands",
    `T.tvm_fill_fragment(H, 32, 8, 16, 0, T.float32(0))\n${LOAD_A()}\n${LOAD_B}\n${MMA}`,
    FragmentMisuseError,
    "operand C is an accumulator fragment of m32n8k16, the operation needs an accumulator fragment of m16n16k16",
  ],
  [
    "an operand never loaded",
    `T.tvm_fill_fragment(H, 16, 16, 16, 0, T.float32(0))\n${LOAD_A()}\n${MMA}`,
    FragmentMisuseError,
    "operand B (fragment 0) was never filled or loaded",
  ],
  [
    "a tile that reaches past its buffer",
    'T.tvm_load_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), A.data, 16, 256, 1), 16, "row_major")',
    FragmentMisuseError,
    "it reads elements 16..271 with leading dimension 16 of an array of 256",
  ],
  [
    "a fragment index past the allocation",
    "T.tvm_fill_fragment(H, 16, 16, 16, 1, T.float32(0))",
    FragmentMisuseError,
    "fragment index 1 is outside its array of 1 fragments of 256 elements",
  ],
  [
    "storing a matrix_a fragment",
    'T.tvm_store_matrix_sync(F, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), C.data, 0, 256, 2), 16, "row_major")',
    SimulationError,
    "only accumulator fragments can be stored, F is a matrix_a fragment",
  ],
];

describe("WMMA misuse found by the simulator", () => {
  it.each(MISUSES)("%s", (_what, body, error, says) => {
    const err = thrown(body);
    expect(err).toBeInstanceOf(error);
    expect(err.message).toContain(says);
  });
});
