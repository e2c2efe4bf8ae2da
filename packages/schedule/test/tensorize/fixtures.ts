/** Tensor intrinsics whose implementations are ordinary TIR (so the CPU executor runs them), and workloads. */
import { type PrimFunc, parsePrimFunc } from "@tessera/ir";
import { TensorIntrin } from "../../src/index.js";

/** C[i, j] += A[i, k] * B[j, k] over a 16×16×16 tile; `body` is the statement in the block. */
function mmaFunc(order: string, scope = "global", dtype = "float32"): string {
  return `
@T.prim_func
def f(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (16, 16), "${dtype}", offset_factor=1, scope="${scope}")
    B = T.match_buffer(b, (16, 16), "${dtype}", offset_factor=1)
    C = T.match_buffer(c, (16, 16), "${dtype}", offset_factor=1)
    with T.block("root"):
        T.reads(C[0:16, 0:16], A[0:16, 0:16], B[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        for ${order} in T.grid(16, 16, 16):
            with T.block("update"):
                vii, vjj, vkk = T.axis.remap("SSR", [i, j, k])
                C[vii, vjj] = C[vii, vjj] + A[vii, vkk] * B[vjj, vkk]
`;
}

/** The description loops i, j, k; the implementation runs k before j (same sums, in the same order per element). */
export const MMA_16 = "test_tir_mma_16x16x16";
TensorIntrin.register(MMA_16, mmaFunc("i, j, k"), mmaFunc("i, k, j"), { override: true });

/** Same computation, but A must live in shared memory. */
export const MMA_16_SHARED_A = "test_tir_mma_16x16x16_shared_a";
TensorIntrin.register(MMA_16_SHARED_A, mmaFunc("i, j, k", "shared"), mmaFunc("i, k, j", "shared"), { override: true });

const DOT_4_HEADER = `
@T.prim_func
def f(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (4,), offset_factor=1)
    B = T.match_buffer(b, (4,), offset_factor=1)
    C = T.match_buffer(c, (), offset_factor=1)
    with T.block("root"):
        T.reads(C[()], A[0:4], B[0:4])
        T.writes(C[()])
`;

/** A 4-element dot product into a scalar, the implementation unrolled by hand. */
export const DOT_4 = "test_tir_dot_4";
TensorIntrin.register(
  DOT_4,
  `${DOT_4_HEADER}        for i in range(4):
            with T.block("update"):
                vi = T.axis.reduce(4, i)
                C[()] = C[()] + A[vi] * B[vi]
`,
  `${DOT_4_HEADER}        C[()] = C[()] + A[0] * B[0] + A[1] * B[1] + A[2] * B[2] + A[3] * B[3]
`,
  { override: true },
);

/** C = A · Bᵀ, n×n×n, no init (the intrinsic accumulates); `update` replaces the stored value. */
export function matmulNT(n: number, dtype = "float32", update = "C[vi, vj] + A[vi, vk] * B[vj, vk]"): PrimFunc {
  return parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((${n}, ${n}), "${dtype}"), B: T.Buffer((${n}, ${n}), "${dtype}"), C: T.Buffer((${n}, ${n}), "${dtype}")):
    for i, j, k in T.grid(${n}, ${n}, ${n}):
        with T.block("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            C[vi, vj] = ${update}
`);
}

/** The batched version: the intrinsic's 2-D buffers sit in the last two dimensions. */
export const BATCH_MATMUL = parsePrimFunc(`
@T.prim_func
def main(A: T.Buffer((4, 32, 32), "float32"), B: T.Buffer((4, 32, 32), "float32"), C: T.Buffer((4, 32, 32), "float32")):
    for n, i, j, k in T.grid(4, 32, 32, 32):
        with T.block("update"):
            vn, vi, vj, vk = T.axis.remap("SSSR", [n, i, j, k])
            C[vn, vi, vj] = C[vn, vi, vj] + A[vn, vi, vk] * B[vn, vj, vk]
`);
