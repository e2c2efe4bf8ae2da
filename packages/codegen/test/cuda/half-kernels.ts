/**
 * Kernels of the 16-bit float types and the tf32 rounding and truncation, shared by half-types.test.ts (spellings)
 * and half-types-nvcc.test.ts (they compile).
 */
import { halfGemmManualSchedule } from "@tessera/corpus";
import type { LoweredModule } from "../../src/lowered.js";
import { lower } from "../../src/lower/pipeline.js";
import type { CudaTargetName } from "../../src/targets/target.js";
import { moduleFromScript } from "./lowered-kernel.js";

/** Every 16-bit operation the generator spells, in one lowered kernel of 16 threads. */
export const HALF_OPERATIONS_SCRIPT = `
@T.prim_func
def main(A: T.Buffer((64,), "float16"), B: T.Buffer((64,), "bfloat16"), F: T.Buffer((64,), "float32"), I: T.Buffer((64,), "int32"), L: T.Buffer((64,), "int64"), H: T.Buffer((64,), "float16"), G: T.Buffer((64,), "bfloat16"), O: T.Buffer((64,), "float32"), P: T.Buffer((64,), "int32")):
    T.func_attr({"global_symbol": "halves", "tir.noalias": T.bool(True)})
    threadIdx_x = T.launch_thread("threadIdx.x", 16)
    H[threadIdx_x] = A[threadIdx_x] * T.float16(0.1) + T.Cast("float16", B[threadIdx_x])
    G[threadIdx_x] = T.max(B[threadIdx_x], T.Cast("bfloat16", I[threadIdx_x])) - T.Cast("bfloat16", F[threadIdx_x])
    H[threadIdx_x + 16] = T.exp(A[threadIdx_x]) / T.Cast("float16", T.float64(0.3)) - T.min(A[threadIdx_x], T.Cast("float16", L[threadIdx_x]))
    G[threadIdx_x + 16] = T.floormod(B[threadIdx_x], T.bfloat16(3)) + T.floordiv(B[threadIdx_x], T.bfloat16(-2.5)) + T.truncmod(B[threadIdx_x], T.bfloat16(0.75))
    O[threadIdx_x] = T.tf32_round(F[threadIdx_x]) + T.tf32_truncate(F[threadIdx_x]) + T.Cast("float32", A[threadIdx_x]) + T.Cast("float32", B[threadIdx_x] * T.Cast("bfloat16", T.float64(1e30)))
    P[threadIdx_x] = T.Cast("int32", B[threadIdx_x]) + T.Cast("int32", A[threadIdx_x] < T.float16(0.5)) + T.Cast("int32", T.Cast("float64", A[threadIdx_x]))
    H[T.Ramp(32 + threadIdx_x * 2, 1, 2)] = A[T.Ramp(threadIdx_x * 2, 1, 2)] + A[T.Ramp(threadIdx_x * 2 + 32, 1, 2)]
    G[T.Ramp(32 + threadIdx_x * 2, 1, 2)] = B[T.Ramp(threadIdx_x * 2, 1, 2)] * T.Broadcast(T.bfloat16(2), 2)
`;

export function halfOperationsModule(target: CudaTargetName = "nvidia/tesla-t4"): LoweredModule {
  return moduleFromScript(HALF_OPERATIONS_SCRIPT, target);
}

/** The 16-bit gemm+ReLU+add (float32 accumulation) at 128³, manually scheduled and lowered. */
export function halfGemmModule(dtype: "float16" | "bfloat16", target: CudaTargetName = "nvidia/tesla-t4"): LoweredModule {
  const params = { tileX: 64, tileY: 64, tileK: 16, threadTileX: 4, threadTileY: 4, threadTileK: 1 };
  return lower(halfGemmManualSchedule(128, dtype, params), target);
}
