extern "C" __global__ void __launch_bounds__(256) gemm_relu_add_kernel_0(float* __restrict__ A, float* __restrict__ B, float* __restrict__ T_matmul) {
  T_matmul[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))] = 0.000000e+00f;
  for (int k = 0; k < 32; ++k) {
    T_matmul[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))] = (T_matmul[((((int)blockIdx.x) * 256) + ((int)threadIdx.x))] + (A[(((((int)blockIdx.x) * 256) + ((((int)threadIdx.x) / 32) * 32)) + k)] * B[((k * 32) + (((int)threadIdx.x) % 32))]));
  }
}

extern "C" __global__ void __launch_bounds__(128) gemm_relu_add_kernel_1(float* __restrict__ T_matmul, float* __restrict__ D, float* __restrict__ E) {
  E[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))] = (fmaxf(T_matmul[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))], 0.000000e+00f) + D[((((int)blockIdx.x) * 128) + ((int)threadIdx.x))]);
}
