#include <metal_stdlib>
using namespace metal;

kernel void batch_matmul_kernel(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]], device float* C [[buffer(2)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  for (int k = 0; k < 12; ++k) {
    if ((k == 0)) {
      C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = 0.000000e+00f;
    }
    C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] = (C[((((int)blockIdx.x) * 64) + ((int)threadIdx.x))] + (A[((((((int)threadIdx.x) / 8) * 12) + (((int)blockIdx.x) * 96)) + k)] * B[((((((int)blockIdx.x) / 2) * 96) + (k * 8)) + (((int)threadIdx.x) % 8))]));
  }
}
