/**
 * A two-kernel module with a workspace, as splitHostDevice produces for gemm + ReLU + add:
 * kernel 0 writes the product into a workspace, kernel 1 reads it.
 */
import { parsePrimFunc } from "@tessera/ir";
import type { LoweredModule } from "../../src/lowered.js";
import { kernelFromFunc, moduleOfKernels } from "./lowered-kernel.js";

const source = `
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), D: T.Buffer((1024,), "float32"), E: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add", "tir.noalias": T.bool(True)})
    for i in range(1024):
        E[i] = A[i] + B[i] + D[i]
`;

const matmul = `
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), T_matmul: T.Buffer((1024,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 256)
    T_matmul[blockIdx_x * 256 + threadIdx_x] = T.float32(0)
    for k in range(32):
        T_matmul[blockIdx_x * 256 + threadIdx_x] = T_matmul[blockIdx_x * 256 + threadIdx_x] + A[blockIdx_x * 256 + threadIdx_x // 32 * 32 + k] * B[k * 32 + threadIdx_x % 32]
`;

const reluAdd = `
@T.prim_func
def main(T_matmul: T.Buffer((1024,), "float32"), D: T.Buffer((1024,), "float32"), E: T.Buffer((1024,), "float32")):
    blockIdx_x = T.launch_thread("blockIdx.x", 8)
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    E[blockIdx_x * 128 + threadIdx_x] = T.max(T_matmul[blockIdx_x * 128 + threadIdx_x], T.float32(0)) + D[blockIdx_x * 128 + threadIdx_x]
`;

export function gemmReluAddModule(): LoweredModule {
  const workspace = { kind: "workspace", index: 0 } as const;
  const k0 = kernelFromFunc(parsePrimFunc(matmul), "gemm_relu_add_kernel_0", {
    A: { kind: "param", index: 0 },
    B: { kind: "param", index: 1 },
    T_matmul: workspace,
  });
  const k1 = kernelFromFunc(parsePrimFunc(reluAdd), "gemm_relu_add_kernel_1", {
    T_matmul: workspace,
    D: { kind: "param", index: 2 },
    E: { kind: "param", index: 3 },
  });
  return moduleOfKernels(parsePrimFunc(source), [k0, k1], [{ name: "T_matmul", dtype: "float32", elements: 1024 }]);
}
