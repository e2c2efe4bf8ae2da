extern "C" __global__ void __launch_bounds__(64) window_sum_kernel(float* __restrict__ A, float* __restrict__ B) {
  __shared__ float A_shared[66];
  for (int ax0_0 = 0; ax0_0 < 2; ++ax0_0) {
    if (((ax0_0 * 64) + ((int)threadIdx.x)) < 66) {
      A_shared[((ax0_0 * 64) + ((int)threadIdx.x))] = A[(((((int)blockIdx.x) * 64) + (ax0_0 * 64)) + ((int)threadIdx.x))];
    }
  }
  __syncthreads();
  B[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = ((A_shared[((int)threadIdx.x)] + A_shared[(((int)threadIdx.x) + 1)]) + A_shared[(((int)threadIdx.x) + 2)]);
}
