extern "C" __global__ void __launch_bounds__(1024) gemm_relu_add_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C, float* __restrict__ D) {
  float matmul[1];
  for (int k = 0; k < 2048; ++k) {
    if (k == 0) {
      matmul[0] = 0.000000e+00f;
    }
    matmul[0] = (matmul[0] + (A[(((((int)blockIdx.x) * 65536) + (((int)threadIdx.x) * 2048)) + k)] * B[(((k * 2048) + (((int)blockIdx.y) * 32)) + ((int)threadIdx.y))]));
  }
  D[((((((int)blockIdx.x) * 65536) + (((int)threadIdx.x) * 2048)) + (((int)blockIdx.y) * 32)) + ((int)threadIdx.y))] = (fmaxf(matmul[0], 0.000000e+00f) + C[((((((int)blockIdx.x) * 65536) + (((int)threadIdx.x) * 2048)) + (((int)blockIdx.y) * 32)) + ((int)threadIdx.y))]);
}
