/** Float64 references of Y = Xᵀ (X float32, row-major n×n): on the host, whole or at sampled elements, and as a CUDA kernel. */

export const TRANSPOSE_F64_KERNEL = "transpose_f64";

/** `transpose_f64(const float* X, double* Y, int n)`, one thread per element of Y (x: columns, y: rows). */
export const TRANSPOSE_F64_CUDA = `
extern "C" __global__ void ${TRANSPOSE_F64_KERNEL}(const float* __restrict__ X, double* __restrict__ Y, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  Y[row * n + col] = (double)X[col * n + row];
}`;

/** Y at the flat row-major indices `indices` of the n×n output. */
export function transposeReferenceAt(X: Float32Array, n: number, indices: ArrayLike<number>): Float64Array {
  const out = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k++) {
    const flat = indices[k]!;
    if (!Number.isInteger(flat) || flat < 0 || flat >= n * n)
      throw new RangeError(`transposeReferenceAt: index ${flat} (position ${k}) is outside the ${n}×${n} output`);
    const row = Math.floor(flat / n);
    out[k] = X[(flat - row * n) * n + row]!;
  }
  return out;
}

/** The whole of Y. */
export function transposeReference(X: Float32Array, n: number): Float64Array {
  return transposeReferenceAt(
    X,
    n,
    Array.from({ length: n * n }, (_, i) => i),
  );
}
