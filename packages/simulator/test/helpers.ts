/** Test support: hand-written lowered kernels (TVMScript), wrapped into LoweredModules as `lower` would produce them. */
import type { LoweredModule } from "@tessera/codegen";
import { parsePrimFunc } from "@tessera/ir";
import { moduleFromKernelFunc } from "@tessera/codegen";
import { loweredWindowSumScript } from "@tessera/corpus";

/** A one-kernel module whose source (and argument list) is the parsed kernel function itself. */
export function moduleFromLoweredScript(script: string, name = "kernel"): LoweredModule {
  return moduleFromKernelFunc(parsePrimFunc(script), { name });
}

/** The MLC window sum, lowered; `sync: false` drops the barrier (a race), `outputIndex` replaces the index of the B store. */
export const windowSumKernel = loweredWindowSumScript;

/** D = ReLU(A·B) + C at n×n×n, one thread per element, 32×32 tiles (the naive schedule, lowered). */
export function naiveGemmKernel(n: number): string {
  const tiles = n / 32;
  return `
@T.prim_func
def main(A: T.Buffer((${n * n},), "float32"), B: T.Buffer((${n * n},), "float32"), C: T.Buffer((${n * n},), "float32"), D: T.Buffer((${n * n},), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", ${tiles})
    matmul_local = T.allocate([1], "float32", "local")
    blockIdx_y = T.launch_thread("blockIdx.y", ${tiles})
    threadIdx_x = T.launch_thread("threadIdx.x", 32)
    threadIdx_y = T.launch_thread("threadIdx.y", 32)
    matmul_local_1 = T.Buffer((1,), data=matmul_local, scope="local")
    matmul_local_1[0] = T.float32(0)
    for k in range(${n}):
        matmul_local_1[0] = matmul_local_1[0] + A[blockIdx_x * ${32 * n} + threadIdx_x * ${n} + k] * B[k * ${n} + blockIdx_y * 32 + threadIdx_y]
    D[blockIdx_x * ${32 * n} + threadIdx_x * ${n} + blockIdx_y * 32 + threadIdx_y] = T.max(matmul_local_1[0], T.float32(0)) + C[blockIdx_x * ${32 * n} + threadIdx_x * ${n} + blockIdx_y * 32 + threadIdx_y]
`;
}

/**
 * D = ReLU(A·B) + C at n×n×n as the course's manual schedule lowers: 64×64 tiles per block,
 * 16×16 threads with 4×4 register tiles, k in chunks of 64 staged in shared memory and fetched
 * cooperatively, two barriers per chunk. `sync: false` drops the barrier after the fetch.
 */
export function tiledGemmKernel(n: number, opts: { sync?: boolean } = {}): string {
  const blocks = n / 64;
  const chunks = n / 64;
  const fetchSync = opts.sync === false ? "" : '        T.tvm_storage_sync("shared")\n';
  return `
@T.prim_func
def main(A: T.Buffer((${n * n},), "float32"), B: T.Buffer((${n * n},), "float32"), C: T.Buffer((${n * n},), "float32"), D: T.Buffer((${n * n},), "float32")):
    T.func_attr({"global_symbol": "gemm_relu_add", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", ${blocks})
    matmul_local = T.allocate([16], "float32", "local")
    A_shared = T.allocate([4096], "float32", "shared")
    B_shared = T.allocate([4096], "float32", "shared")
    A_shared_local = T.allocate([4], "float32", "local")
    B_shared_local = T.allocate([4], "float32", "local")
    blockIdx_y = T.launch_thread("blockIdx.y", ${blocks})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    threadIdx_y = T.launch_thread("threadIdx.y", 16)
    matmul_local_1 = T.Buffer((16,), data=matmul_local, scope="local")
    A_shared_1 = T.Buffer((4096,), data=A_shared, scope="shared")
    B_shared_1 = T.Buffer((4096,), data=B_shared, scope="shared")
    A_shared_local_1 = T.Buffer((4,), data=A_shared_local, scope="local")
    B_shared_local_1 = T.Buffer((4,), data=B_shared_local, scope="local")
    for i_init in range(4):
        for j_init in range(4):
            matmul_local_1[i_init * 4 + j_init] = T.float32(0)
    for k_0 in range(${chunks}):
        for f0 in range(16):
            A_shared_1[f0 * 256 + threadIdx_x * 16 + threadIdx_y] = A[blockIdx_x * ${64 * n} + f0 * ${4 * n} + threadIdx_x // 4 * ${n} + k_0 * 64 + threadIdx_x % 4 * 16 + threadIdx_y]
        for f0 in range(16):
            B_shared_1[f0 * 256 + threadIdx_x * 16 + threadIdx_y] = B[k_0 * ${64 * n} + f0 * ${4 * n} + threadIdx_x // 4 * ${n} + blockIdx_y * 64 + threadIdx_x % 4 * 16 + threadIdx_y]
${fetchSync}        for k_1 in range(64):
            for ax1 in range(4):
                A_shared_local_1[ax1] = A_shared_1[threadIdx_x * 256 + ax1 * 64 + k_1]
            for ax1 in range(4):
                B_shared_local_1[ax1] = B_shared_1[k_1 * 64 + threadIdx_y * 4 + ax1]
            for i in range(4):
                for j in range(4):
                    matmul_local_1[i * 4 + j] = matmul_local_1[i * 4 + j] + A_shared_local_1[i] * B_shared_local_1[j]
        T.tvm_storage_sync("shared")
    for ax0 in range(4):
        for ax1 in range(4):
            D[blockIdx_x * ${64 * n} + threadIdx_x * ${4 * n} + ax0 * ${n} + blockIdx_y * 64 + threadIdx_y * 4 + ax1] = T.max(matmul_local_1[ax0 * 4 + ax1], T.float32(0)) + C[blockIdx_x * ${64 * n} + threadIdx_x * ${4 * n} + ax0 * ${n} + blockIdx_y * 64 + threadIdx_y * 4 + ax1]
`;
}
