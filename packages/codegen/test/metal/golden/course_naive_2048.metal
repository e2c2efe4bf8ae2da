#include <metal_stdlib>
using namespace metal;

kernel void gemm_relu_add_kernel(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]], device const float* C [[buffer(2)]], device float* D [[buffer(3)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  float matmul[1];
  for (int k = 0; k < 2048; ++k) {
    if ((k == 0)) {
      matmul[0] = 0.000000e+00f;
    }
    matmul[0] = (matmul[0] + (A[(((((int)blockIdx.x) * 65536) + (((int)threadIdx.x) * 2048)) + k)] * B[(((k * 2048) + (((int)blockIdx.y) * 32)) + ((int)threadIdx.y))]));
  }
  D[((((((int)blockIdx.x) * 65536) + (((int)threadIdx.x) * 2048)) + (((int)blockIdx.y) * 32)) + ((int)threadIdx.y))] = (max(matmul[0], 0.000000e+00f) + C[((((((int)blockIdx.x) * 65536) + (((int)threadIdx.x) * 2048)) + (((int)blockIdx.y) * 32)) + ((int)threadIdx.y))]);
}
