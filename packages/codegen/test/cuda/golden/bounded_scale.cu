extern "C" __global__ void __launch_bounds__(256, 2) bounded_scale_kernel(float* __restrict__ A, float* __restrict__ B) {
  B[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))] = (A[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))] * 2.000000e+00f);
}
