/** Small workloads shared by the loop-primitive tests. */
import { type PrimFunc, parsePrimFunc } from "@tessera/ir";

export const ELEMENTWISE = `
@T.prim_func
def main(A: T.Buffer((128, 128, 128), "float32"), B: T.Buffer((128, 128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;

export const VECTOR_100 = `
@T.prim_func
def main(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i in range(100):
        with T.block("B"):
            vi = T.axis.spatial(100, i)
            B[vi] = A[vi] * T.float32(2.0)
`;

/** An int32 matmul: exact under any reordering of the reduction. */
export function intMatmul(m: number, n: number, k: number): string {
  return `
@T.prim_func
def main(A: T.Buffer((${m}, ${k}), "int32"), B: T.Buffer((${k}, ${n}), "int32"), C: T.Buffer((${m}, ${n}), "int32")):
    for i, j, k in T.grid(${m}, ${n}, ${k}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;
}

export const parse = (text: string): PrimFunc => parsePrimFunc(text);

export { expectScheduleError, runOn } from "./support.js";
