extern "C" __global__ void __launch_bounds__(128) vector_add_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  if (((((int)blockIdx.x) * 128) + ((int)threadIdx.x)) < 1000) {
    C[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] + B[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))]);
  }
}
