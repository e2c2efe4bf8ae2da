/**
 * Hand-written lowered kernels (the form `lower()` produces) with golden CUDA in golden/<name>.cu.
 * Each global_symbol is distinct, so all golden sources can be compiled as one translation unit.
 */
import { loweredWindowSumScript } from "@tessera/corpus";

export interface GoldenKernel {
  readonly name: string;
  readonly script: string;
  /** Static shared memory the kernel declares, in bytes (what ptxas must report). */
  readonly sharedBytes: number;
}

const vectorAdd = `
@T.prim_func
def main(A: T.Buffer((1000,), "float32"), B: T.Buffer((1000,), "float32"), C: T.Buffer((1000,), "float32")):
    T.func_attr({"global_symbol": "vector_add", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 8)
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    if blockIdx_x * 128 + threadIdx_x < 1000:
        C[blockIdx_x * 128 + threadIdx_x] = A[blockIdx_x * 128 + threadIdx_x] + B[blockIdx_x * 128 + threadIdx_x]
`;

const windowSum = loweredWindowSumScript();

/** 64×64×64 gemm, one output per thread, 16×16 threads per block, a register accumulator. */
const naiveGemm = `
@T.prim_func
def main(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32"), C: T.Buffer((4096,), "float32")):
    T.func_attr({"global_symbol": "naive_gemm", "tir.noalias": T.bool(True)})
    blockIdx_y = T.launch_thread("blockIdx.y", 4)
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_y = T.launch_thread("threadIdx.y", 16)
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    C_local = T.allocate([1], "float32", "local")
    C_local_1 = T.Buffer((1,), data=C_local, scope="local")
    for k in range(64):
        if k == 0:
            C_local_1[0] = T.float32(0)
        C_local_1[0] = C_local_1[0] + A[blockIdx_y * 1024 + threadIdx_y * 64 + k] * B[k * 64 + blockIdx_x * 16 + threadIdx_x]
    C[blockIdx_y * 1024 + threadIdx_y * 64 + blockIdx_x * 16 + threadIdx_x] = C_local_1[0]
`;

/** float4 copy whose Ramp bases are multiples of 4: one vector load and store per thread. */
const copyAligned = `
@T.prim_func
def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "copy_float4_aligned", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 2)
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    B[T.Ramp(blockIdx_x * 512 + threadIdx_x * 4, 1, 4)] = A[T.Ramp(blockIdx_x * 512 + threadIdx_x * 4, 1, 4)]
`;

/** Shifted by one and two elements: no alignment proof, so lane-wise loads and stores. */
const copyUnaligned = `
@T.prim_func
def main(A: T.Buffer((1032,), "float32"), B: T.Buffer((1032,), "float32")):
    T.func_attr({"global_symbol": "copy_float4_unaligned", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 256)
    B[T.Ramp(threadIdx_x * 4 + 2, 1, 4)] = A[T.Ramp(threadIdx_x * 4 + 1, 1, 4)]
`;

/** Vector arithmetic: aligned loads, a broadcast scale, an element-wise sum into a shared stage. */
const scaleAddFloat4 = `
@T.prim_func
def main(A: T.Buffer((512,), "float32"), B: T.Buffer((512,), "float32"), C: T.Buffer((512,), "float32"), alpha: T.float32):
    T.func_attr({"global_symbol": "scale_add_float4", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 128)
    S = T.allocate([512], "float32", "shared")
    S_1 = T.Buffer((512,), data=S, scope="shared")
    S_1[T.Ramp(threadIdx_x * 4, 1, 4)] = A[T.Ramp(threadIdx_x * 4, 1, 4)] * T.Broadcast(alpha, 4) + B[T.Ramp(threadIdx_x * 4, 1, 4)]
    T.tvm_storage_sync("shared")
    C[threadIdx_x * 4] = S_1[511 - threadIdx_x * 4]
`;

/** A 4×4 register tile in a local array, with unrolled loops (one kept as #pragma unroll). */
const registerTile = `
@T.prim_func
def main(A: T.Buffer((4096,), "float32"), B: T.Buffer((4096,), "float32")):
    T.func_attr({"global_symbol": "register_tile", "tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 4)
    threadIdx_x = T.launch_thread("threadIdx.x", 64)
    acc = T.allocate([16], "float32", "local")
    acc_1 = T.Buffer((16,), data=acc, scope="local")
    for i in T.unroll(4):
        for j in T.unroll(4):
            acc_1[i * 4 + j] = T.float32(0)
    for k in range(8):
        for i in T.unroll(4):
            for j in T.unroll(4):
                acc_1[i * 4 + j] = acc_1[i * 4 + j] + A[blockIdx_x * 1024 + threadIdx_x * 16 + i * 4 + k % 4] * T.float32(0.5)
    for i in T.unroll(4):
        for j in T.unroll(4):
            B[blockIdx_x * 1024 + threadIdx_x * 16 + i * 4 + j] = T.max(acc_1[i * 4 + j], T.float32(0))
`;

/** Index arithmetic that may be negative (a scalar shift), math intrinsics, selects and casts. */
const shiftedActivation = `
@T.prim_func
def main(A: T.Buffer((256,), "float32"), B: T.Buffer((256,), "float32"), shift: T.int32):
    T.func_attr({"global_symbol": "shifted_activation", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 256)
    B[threadIdx_x] = T.if_then_else(A[T.floormod(threadIdx_x - shift, 256)] > T.float32(0), T.exp(A[T.floormod(threadIdx_x - shift, 256)]), T.sqrt(T.Cast("float32", T.floordiv(threadIdx_x - shift, 16)) * T.float32(0.1) + T.float32(2))) + T.Select(threadIdx_x % 2 == 0, T.float32(1), T.float32(-1))
`;

/** Integer bit operations, and rsqrt under a likely() hint next to an assume() that prints nothing. */
const bitsAndHints = `
@T.prim_func
def main(A: T.Buffer((256,), "int32"), B: T.Buffer((256,), "int32"), X: T.Buffer((256,), "float32"), Y: T.Buffer((256,), "float32")):
    T.func_attr({"global_symbol": "bits_and_hints", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 256)
    T.evaluate(T.assume(threadIdx_x < 256))
    B[threadIdx_x] = T.bitwise_xor(T.shift_left(A[threadIdx_x], 3), T.shift_right(A[threadIdx_x], T.bitwise_and(threadIdx_x, 7))) | T.bitwise_not(A[threadIdx_x])
    Y[threadIdx_x] = T.if_then_else(T.likely(X[threadIdx_x] > T.float32(1)), T.rsqrt(X[threadIdx_x]), X[threadIdx_x])
`;

/**
 * `__launch_bounds__(256, 2)` from the function attribute; a pragma attribute in the body (which
 * lowering leaves for passes that read it) prints nothing.
 */
const boundedScale = `
@T.prim_func
def main(A: T.Buffer((2048,), "float32"), B: T.Buffer((2048,), "float32")):
    T.func_attr({"global_symbol": "bounded_scale", "tir.noalias": T.bool(True), "tirx.launch_bounds_min_blocks_per_sm": 2})
    blockIdx_x = T.launch_thread("blockIdx.x", 8)
    threadIdx_x = T.launch_thread("threadIdx.x", 256)
    T.attr(None, "pragma_import_c", "unused")
    B[blockIdx_x * 256 + threadIdx_x] = A[blockIdx_x * 256 + threadIdx_x] * T.float32(2)
`;

export const GOLDEN_KERNELS: readonly GoldenKernel[] = [
  { name: "vector_add", script: vectorAdd, sharedBytes: 0 },
  { name: "window_sum", script: windowSum, sharedBytes: 66 * 4 },
  { name: "naive_gemm", script: naiveGemm, sharedBytes: 0 },
  { name: "copy_float4_aligned", script: copyAligned, sharedBytes: 0 },
  { name: "copy_float4_unaligned", script: copyUnaligned, sharedBytes: 0 },
  { name: "scale_add_float4", script: scaleAddFloat4, sharedBytes: 512 * 4 },
  { name: "register_tile", script: registerTile, sharedBytes: 0 },
  { name: "shifted_activation", script: shiftedActivation, sharedBytes: 0 },
  { name: "bounded_scale", script: boundedScale, sharedBytes: 0 },
  { name: "bits_and_hints", script: bitsAndHints, sharedBytes: 0 },
];
