extern "C" __global__ void __launch_bounds__(256) naive_gemm_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C) {
  float C_local[1];
  for (int k = 0; k < 64; ++k) {
    if (k == 0) {
      C_local[0] = 0.000000e+00f;
    }
    C_local[0] = (C_local[0] + (A[(((((int)blockIdx.y) * 1024) + (((int)threadIdx.y) * 64)) + k)] * B[(((k * 64) + (((int)blockIdx.x) * 16)) + ((int)threadIdx.x))]));
  }
  C[((((((int)blockIdx.y) * 1024) + (((int)threadIdx.y) * 64)) + (((int)blockIdx.x) * 16)) + ((int)threadIdx.x))] = C_local[0];
}
