extern "C" __global__ void __launch_bounds__(256) copy_float4_unaligned_kernel(float* __restrict__ A, float* __restrict__ B) {
  B[((((int)threadIdx.x) * 4) + 2)] = A[((((int)threadIdx.x) * 4) + 1)];
  B[((((int)threadIdx.x) * 4) + 3)] = A[((((int)threadIdx.x) * 4) + 2)];
  B[((((int)threadIdx.x) * 4) + 4)] = A[((((int)threadIdx.x) * 4) + 3)];
  B[((((int)threadIdx.x) * 4) + 5)] = A[((((int)threadIdx.x) * 4) + 4)];
}
