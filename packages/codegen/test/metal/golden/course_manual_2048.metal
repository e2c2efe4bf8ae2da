#include <metal_stdlib>
using namespace metal;

kernel void gemm_relu_add_kernel(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]], device const float* C [[buffer(2)]], device float* D [[buffer(3)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  float matmul_local[16];
  for (int k_0 = 0; k_0 < 32; ++k_0) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
    threadgroup float A_shared[4096];
    threadgroup float B_shared[4096];
    for (int ax0_ax1_fused_0 = 0; ax0_ax1_fused_0 < 16; ++ax0_ax1_fused_0) {
      A_shared[(((ax0_ax1_fused_0 * 256) + (((int)threadIdx.x) * 16)) + ((int)threadIdx.y))] = A[((((((((int)blockIdx.x) * 131072) + (ax0_ax1_fused_0 * 8192)) + ((((int)threadIdx.x) / 4) * 2048)) + (k_0 * 64)) + ((((int)threadIdx.x) % 4) * 16)) + ((int)threadIdx.y))];
    }
    for (int ax0_ax1_fused_0_1 = 0; ax0_ax1_fused_0_1 < 16; ++ax0_ax1_fused_0_1) {
      B_shared[(((ax0_ax1_fused_0_1 * 256) + (((int)threadIdx.x) * 16)) + ((int)threadIdx.y))] = B[((((((k_0 * 131072) + (ax0_ax1_fused_0_1 * 8192)) + ((((int)threadIdx.x) / 4) * 2048)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) % 4) * 16)) + ((int)threadIdx.y))];
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (int k_1_0 = 0; k_1_0 < 64; ++k_1_0) {
      float A_shared_local[4];
      float B_shared_local[4];
      for (int ax0 = 0; ax0 < 4; ++ax0) {
        A_shared_local[ax0] = A_shared[(((((int)threadIdx.x) * 256) + (ax0 * 64)) + k_1_0)];
      }
      for (int ax0_1 = 0; ax0_1 < 4; ++ax0_1) {
        B_shared_local[ax0_1] = B_shared[(((k_1_0 * 64) + (((int)threadIdx.y) * 4)) + ax0_1)];
      }
      for (int i_1_1 = 0; i_1_1 < 4; ++i_1_1) {
        for (int j_1_1 = 0; j_1_1 < 4; ++j_1_1) {
          if ((((k_0 * 64) + k_1_0) == 0)) {
            matmul_local[((i_1_1 * 4) + j_1_1)] = 0.000000e+00f;
          }
          matmul_local[((i_1_1 * 4) + j_1_1)] = (matmul_local[((i_1_1 * 4) + j_1_1)] + (A_shared_local[i_1_1] * B_shared_local[j_1_1]));
        }
      }
    }
    for (int ax0_2 = 0; ax0_2 < 4; ++ax0_2) {
      for (int ax1 = 0; ax1 < 4; ++ax1) {
        D[((((((((int)blockIdx.x) * 131072) + (((int)threadIdx.x) * 8192)) + (ax0_2 * 2048)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + ax1)] = (max(matmul_local[((ax0_2 * 4) + ax1)], 0.000000e+00f) + C[((((((((int)blockIdx.x) * 131072) + (((int)threadIdx.x) * 8192)) + (ax0_2 * 2048)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + ax1)]);
      }
    }
  }
}
