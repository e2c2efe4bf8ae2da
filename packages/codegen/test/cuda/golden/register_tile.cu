extern "C" __global__ void __launch_bounds__(64) register_tile_kernel(float* __restrict__ A, float* __restrict__ B) {
  float acc[16];
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    #pragma unroll
    for (int j = 0; j < 4; ++j) {
      acc[((i * 4) + j)] = 0.000000e+00f;
    }
  }
  for (int k = 0; k < 8; ++k) {
    #pragma unroll
    for (int i_1 = 0; i_1 < 4; ++i_1) {
      #pragma unroll
      for (int j_1 = 0; j_1 < 4; ++j_1) {
        acc[((i_1 * 4) + j_1)] = (acc[((i_1 * 4) + j_1)] + (A[((((((int)blockIdx.x) * 1024) + (((int)threadIdx.x) * 16)) + (i_1 * 4)) + (k % 4))] * 5.000000e-01f));
      }
    }
  }
  #pragma unroll
  for (int i_2 = 0; i_2 < 4; ++i_2) {
    #pragma unroll
    for (int j_2 = 0; j_2 < 4; ++j_2) {
      B[((((((int)blockIdx.x) * 1024) + (((int)threadIdx.x) * 16)) + (i_2 * 4)) + j_2)] = fmaxf(acc[((i_2 * 4) + j_2)], 0.000000e+00f);
    }
  }
}
