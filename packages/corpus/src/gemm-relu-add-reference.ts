/**
 * Trusted float64 references of D = ReLU(A·B) + C (A, B, C float32, row-major n×n): on the host,
 * and as CUDA source of a naive one-thread-per-output kernel for large sizes. Deliberately simple,
 * so that they can be trusted to check generated (float32, tiled) kernels against.
 */

/** The kernel's name in `GEMM_RELU_ADD_F64_CUDA`: `(A, B, C, double* D, int n)`, one thread per element of D. */
export const GEMM_RELU_ADD_F64_KERNEL = "gemm_relu_add_f64";

/** CUDA source of the float64 reference: launch with a 2-D grid covering n×n (x: columns, y: rows). */
export const GEMM_RELU_ADD_F64_CUDA = `
extern "C" __global__ void ${GEMM_RELU_ADD_F64_KERNEL}(const float* __restrict__ A, const float* __restrict__ B,
                                          const float* __restrict__ C, double* __restrict__ D, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  double acc = 0.0;
  for (int k = 0; k < n; ++k) acc += (double)A[row * n + k] * (double)B[k * n + col];
  D[row * n + col] = fmax(acc, 0.0) + (double)C[row * n + col];
}`;

/** The reference on the host, for small sizes (a simulator run at 256³, a dry run): rows of the dot products accumulated in float64. */
export function gemmReluAddReferenceOnHost(A: Float32Array, B: Float32Array, C: Float32Array, n: number): Float64Array {
  const out = new Float64Array(n * n);
  const row = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    row.fill(0);
    for (let k = 0; k < n; k++) {
      const a = A[i * n + k]!;
      const bRow = k * n;
      for (let j = 0; j < n; j++) row[j]! += a * B[bRow + j]!;
    }
    for (let j = 0; j < n; j++) out[i * n + j] = Math.max(row[j]!, 0) + C[i * n + j]!;
  }
  return out;
}
