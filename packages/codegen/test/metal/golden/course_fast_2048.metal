#include <metal_stdlib>
using namespace metal;

kernel void gemm_relu_add_kernel(device const float* A [[buffer(0)]], device const float* B [[buffer(1)]], device const float* C [[buffer(2)]], device float* D [[buffer(3)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  float matmul_local[128];
  for (int i_3_init = 0; i_3_init < 4; ++i_3_init) {
    for (int j_3_init = 0; j_3_init < 4; ++j_3_init) {
      matmul_local[((i_3_init * 4) + j_3_init)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 32)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 64)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 96)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 16)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 48)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 80)] = 0.000000e+00f;
      matmul_local[(((i_3_init * 4) + j_3_init) + 112)] = 0.000000e+00f;
    }
  }
  threadgroup float A_shared[4156];
  float A_local[8];
  threadgroup float B_shared[2048];
  float B_local[4];
  for (int k_0 = 0; k_0 < 2; ++k_0) {
    if ((1 <= k_0)) {
      for (int ax0_ax1_fused_1 = 0; ax0_ax1_fused_1 < 2; ++ax0_ax1_fused_1) {
        for (int ax0_ax1_fused_2 = 0; ax0_ax1_fused_2 < 4; ++ax0_ax1_fused_2) {
          A_shared[((((((k_0 + 1) % 2) * 2080) + (ax0_ax1_fused_1 * 1040)) + (ax0_ax1_fused_2 * 260)) + ((int)threadIdx.x))] = A_local[((ax0_ax1_fused_1 * 4) + ax0_ax1_fused_2)];
        }
      }
    }
    if ((1 <= k_0)) {
      {
        float B_shared_lane0 = B_local[0];
        float B_shared_lane1 = B_local[1];
        float B_shared_lane2 = B_local[2];
        float B_shared_lane3 = B_local[3];
        B_shared[((((k_0 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4))] = B_shared_lane0;
        B_shared[(((((k_0 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 1)] = B_shared_lane1;
        B_shared[(((((k_0 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 2)] = B_shared_lane2;
        B_shared[(((((k_0 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 3)] = B_shared_lane3;
      }
    }
    for (int ax0_ax1_fused_1_1 = 0; ax0_ax1_fused_1_1 < 2; ++ax0_ax1_fused_1_1) {
      {
        float A_local_lane0 = A[(((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0 * 8)) + (ax0_ax1_fused_1_1 * 4))];
        float A_local_lane1 = A[((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0 * 8)) + (ax0_ax1_fused_1_1 * 4)) + 1)];
        float A_local_lane2 = A[((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0 * 8)) + (ax0_ax1_fused_1_1 * 4)) + 2)];
        float A_local_lane3 = A[((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0 * 8)) + (ax0_ax1_fused_1_1 * 4)) + 3)];
        A_local[(ax0_ax1_fused_1_1 * 4)] = A_local_lane0;
        A_local[((ax0_ax1_fused_1_1 * 4) + 1)] = A_local_lane1;
        A_local[((ax0_ax1_fused_1_1 * 4) + 2)] = A_local_lane2;
        A_local[((ax0_ax1_fused_1_1 * 4) + 3)] = A_local_lane3;
      }
    }
    {
      float B_local_lane0 = B[((((k_0 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4))];
      float B_local_lane1 = B[(((((k_0 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 1)];
      float B_local_lane2 = B[(((((k_0 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 2)];
      float B_local_lane3 = B[(((((k_0 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 3)];
      B_local[0] = B_local_lane0;
      B_local[1] = B_local_lane1;
      B_local[2] = B_local_lane2;
      B_local[3] = B_local_lane3;
    }
  }
  for (int k_0_1 = 0; k_0_1 < 254; ++k_0_1) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (int ax0_ax1_fused_1_2 = 0; ax0_ax1_fused_1_2 < 2; ++ax0_ax1_fused_1_2) {
      for (int ax0_ax1_fused_2_1 = 0; ax0_ax1_fused_2_1 < 4; ++ax0_ax1_fused_2_1) {
        A_shared[((((((k_0_1 + 1) % 2) * 2080) + (ax0_ax1_fused_1_2 * 1040)) + (ax0_ax1_fused_2_1 * 260)) + ((int)threadIdx.x))] = A_local[((ax0_ax1_fused_1_2 * 4) + ax0_ax1_fused_2_1)];
      }
    }
    {
      float B_shared_lane0_1 = B_local[0];
      float B_shared_lane1_1 = B_local[1];
      float B_shared_lane2_1 = B_local[2];
      float B_shared_lane3_1 = B_local[3];
      B_shared[((((k_0_1 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4))] = B_shared_lane0_1;
      B_shared[(((((k_0_1 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 1)] = B_shared_lane1_1;
      B_shared[(((((k_0_1 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 2)] = B_shared_lane2_1;
      B_shared[(((((k_0_1 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 3)] = B_shared_lane3_1;
    }
    for (int ax0_ax1_fused_1_3 = 0; ax0_ax1_fused_1_3 < 2; ++ax0_ax1_fused_1_3) {
      {
        float A_local_lane0_1 = A[((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0_1 * 8)) + (ax0_ax1_fused_1_3 * 4)) + 16)];
        float A_local_lane1_1 = A[(((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0_1 * 8)) + (ax0_ax1_fused_1_3 * 4)) + 16) + 1)];
        float A_local_lane2_1 = A[(((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0_1 * 8)) + (ax0_ax1_fused_1_3 * 4)) + 16) + 2)];
        float A_local_lane3_1 = A[(((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0_1 * 8)) + (ax0_ax1_fused_1_3 * 4)) + 16) + 3)];
        A_local[(ax0_ax1_fused_1_3 * 4)] = A_local_lane0_1;
        A_local[((ax0_ax1_fused_1_3 * 4) + 1)] = A_local_lane1_1;
        A_local[((ax0_ax1_fused_1_3 * 4) + 2)] = A_local_lane2_1;
        A_local[((ax0_ax1_fused_1_3 * 4) + 3)] = A_local_lane3_1;
      }
    }
    {
      float B_local_lane0_1 = B[(((((k_0_1 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 32768)];
      float B_local_lane1_1 = B[((((((k_0_1 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 32768) + 1)];
      float B_local_lane2_1 = B[((((((k_0_1 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 32768) + 2)];
      float B_local_lane3_1 = B[((((((k_0_1 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 32768) + 3)];
      B_local[0] = B_local_lane0_1;
      B_local[1] = B_local_lane1_1;
      B_local[2] = B_local_lane2_1;
      B_local[3] = B_local_lane3_1;
    }
    for (int k_1 = 0; k_1 < 8; ++k_1) {
      float A_shared_local[16];
      float B_shared_local[8];
      {
        float A_shared_local_lane0 = A_shared[(((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4))];
        float A_shared_local_lane1 = A_shared[((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 1)];
        float A_shared_local_lane2 = A_shared[((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 2)];
        float A_shared_local_lane3 = A_shared[((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 3)];
        A_shared_local[0] = A_shared_local_lane0;
        A_shared_local[1] = A_shared_local_lane1;
        A_shared_local[2] = A_shared_local_lane2;
        A_shared_local[3] = A_shared_local_lane3;
      }
      {
        float A_shared_local_lane0_1 = A_shared[((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64)];
        float A_shared_local_lane1_1 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64) + 1)];
        float A_shared_local_lane2_1 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64) + 2)];
        float A_shared_local_lane3_1 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64) + 3)];
        A_shared_local[4] = A_shared_local_lane0_1;
        A_shared_local[5] = A_shared_local_lane1_1;
        A_shared_local[6] = A_shared_local_lane2_1;
        A_shared_local[7] = A_shared_local_lane3_1;
      }
      {
        float A_shared_local_lane0_2 = A_shared[((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128)];
        float A_shared_local_lane1_2 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128) + 1)];
        float A_shared_local_lane2_2 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128) + 2)];
        float A_shared_local_lane3_2 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128) + 3)];
        A_shared_local[8] = A_shared_local_lane0_2;
        A_shared_local[9] = A_shared_local_lane1_2;
        A_shared_local[10] = A_shared_local_lane2_2;
        A_shared_local[11] = A_shared_local_lane3_2;
      }
      {
        float A_shared_local_lane0_3 = A_shared[((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192)];
        float A_shared_local_lane1_3 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192) + 1)];
        float A_shared_local_lane2_3 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192) + 2)];
        float A_shared_local_lane3_3 = A_shared[(((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192) + 3)];
        A_shared_local[12] = A_shared_local_lane0_3;
        A_shared_local[13] = A_shared_local_lane1_3;
        A_shared_local[14] = A_shared_local_lane2_3;
        A_shared_local[15] = A_shared_local_lane3_3;
      }
      {
        float B_shared_local_lane0 = B_shared[(((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4))];
        float B_shared_local_lane1 = B_shared[((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 1)];
        float B_shared_local_lane2 = B_shared[((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 2)];
        float B_shared_local_lane3 = B_shared[((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 3)];
        B_shared_local[0] = B_shared_local_lane0;
        B_shared_local[1] = B_shared_local_lane1;
        B_shared_local[2] = B_shared_local_lane2;
        B_shared_local[3] = B_shared_local_lane3;
      }
      {
        float B_shared_local_lane0_1 = B_shared[((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64)];
        float B_shared_local_lane1_1 = B_shared[(((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 1)];
        float B_shared_local_lane2_1 = B_shared[(((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 2)];
        float B_shared_local_lane3_1 = B_shared[(((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 3)];
        B_shared_local[4] = B_shared_local_lane0_1;
        B_shared_local[5] = B_shared_local_lane1_1;
        B_shared_local[6] = B_shared_local_lane2_1;
        B_shared_local[7] = B_shared_local_lane3_1;
      }
      for (int i_3 = 0; i_3 < 4; ++i_3) {
        for (int j_3 = 0; j_3 < 4; ++j_3) {
          matmul_local[((i_3 * 4) + j_3)] = (matmul_local[((i_3 * 4) + j_3)] + (A_shared_local[i_3] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4) + j_3) + 32)] = (matmul_local[(((i_3 * 4) + j_3) + 32)] + (A_shared_local[(i_3 + 4)] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4) + j_3) + 64)] = (matmul_local[(((i_3 * 4) + j_3) + 64)] + (A_shared_local[(i_3 + 8)] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4) + j_3) + 96)] = (matmul_local[(((i_3 * 4) + j_3) + 96)] + (A_shared_local[(i_3 + 12)] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4) + j_3) + 16)] = (matmul_local[(((i_3 * 4) + j_3) + 16)] + (A_shared_local[i_3] * B_shared_local[(j_3 + 4)]));
          matmul_local[(((i_3 * 4) + j_3) + 48)] = (matmul_local[(((i_3 * 4) + j_3) + 48)] + (A_shared_local[(i_3 + 4)] * B_shared_local[(j_3 + 4)]));
          matmul_local[(((i_3 * 4) + j_3) + 80)] = (matmul_local[(((i_3 * 4) + j_3) + 80)] + (A_shared_local[(i_3 + 8)] * B_shared_local[(j_3 + 4)]));
          matmul_local[(((i_3 * 4) + j_3) + 112)] = (matmul_local[(((i_3 * 4) + j_3) + 112)] + (A_shared_local[(i_3 + 12)] * B_shared_local[(j_3 + 4)]));
        }
      }
    }
  }
  for (int k_0_2 = 0; k_0_2 < 2; ++k_0_2) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if ((k_0_2 < 1)) {
      for (int ax0_ax1_fused_1_4 = 0; ax0_ax1_fused_1_4 < 2; ++ax0_ax1_fused_1_4) {
        for (int ax0_ax1_fused_2_2 = 0; ax0_ax1_fused_2_2 < 4; ++ax0_ax1_fused_2_2) {
          A_shared[((((((k_0_2 + 1) % 2) * 2080) + (ax0_ax1_fused_1_4 * 1040)) + (ax0_ax1_fused_2_2 * 260)) + ((int)threadIdx.x))] = A_local[((ax0_ax1_fused_1_4 * 4) + ax0_ax1_fused_2_2)];
        }
      }
    }
    if ((k_0_2 < 1)) {
      {
        float B_shared_lane0_2 = B_local[0];
        float B_shared_lane1_2 = B_local[1];
        float B_shared_lane2_2 = B_local[2];
        float B_shared_lane3_2 = B_local[3];
        B_shared[((((k_0_2 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4))] = B_shared_lane0_2;
        B_shared[(((((k_0_2 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 1)] = B_shared_lane1_2;
        B_shared[(((((k_0_2 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 2)] = B_shared_lane2_2;
        B_shared[(((((k_0_2 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4)) + 3)] = B_shared_lane3_2;
      }
    }
    for (int k_1_1 = 0; k_1_1 < 8; ++k_1_1) {
      float A_shared_local_1[16];
      float B_shared_local_1[8];
      {
        float A_shared_local_1_lane0 = A_shared[((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4))];
        float A_shared_local_1_lane1 = A_shared[(((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 1)];
        float A_shared_local_1_lane2 = A_shared[(((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 2)];
        float A_shared_local_1_lane3 = A_shared[(((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 3)];
        A_shared_local_1[0] = A_shared_local_1_lane0;
        A_shared_local_1[1] = A_shared_local_1_lane1;
        A_shared_local_1[2] = A_shared_local_1_lane2;
        A_shared_local_1[3] = A_shared_local_1_lane3;
      }
      {
        float A_shared_local_1_lane0_1 = A_shared[(((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64)];
        float A_shared_local_1_lane1_1 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64) + 1)];
        float A_shared_local_1_lane2_1 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64) + 2)];
        float A_shared_local_1_lane3_1 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64) + 3)];
        A_shared_local_1[4] = A_shared_local_1_lane0_1;
        A_shared_local_1[5] = A_shared_local_1_lane1_1;
        A_shared_local_1[6] = A_shared_local_1_lane2_1;
        A_shared_local_1[7] = A_shared_local_1_lane3_1;
      }
      {
        float A_shared_local_1_lane0_2 = A_shared[(((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128)];
        float A_shared_local_1_lane1_2 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128) + 1)];
        float A_shared_local_1_lane2_2 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128) + 2)];
        float A_shared_local_1_lane3_2 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128) + 3)];
        A_shared_local_1[8] = A_shared_local_1_lane0_2;
        A_shared_local_1[9] = A_shared_local_1_lane1_2;
        A_shared_local_1[10] = A_shared_local_1_lane2_2;
        A_shared_local_1[11] = A_shared_local_1_lane3_2;
      }
      {
        float A_shared_local_1_lane0_3 = A_shared[(((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192)];
        float A_shared_local_1_lane1_3 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192) + 1)];
        float A_shared_local_1_lane2_3 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192) + 2)];
        float A_shared_local_1_lane3_3 = A_shared[((((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192) + 3)];
        A_shared_local_1[12] = A_shared_local_1_lane0_3;
        A_shared_local_1[13] = A_shared_local_1_lane1_3;
        A_shared_local_1[14] = A_shared_local_1_lane2_3;
        A_shared_local_1[15] = A_shared_local_1_lane3_3;
      }
      {
        float B_shared_local_1_lane0 = B_shared[((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4))];
        float B_shared_local_1_lane1 = B_shared[(((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 1)];
        float B_shared_local_1_lane2 = B_shared[(((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 2)];
        float B_shared_local_1_lane3 = B_shared[(((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 3)];
        B_shared_local_1[0] = B_shared_local_1_lane0;
        B_shared_local_1[1] = B_shared_local_1_lane1;
        B_shared_local_1[2] = B_shared_local_1_lane2;
        B_shared_local_1[3] = B_shared_local_1_lane3;
      }
      {
        float B_shared_local_1_lane0_1 = B_shared[(((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64)];
        float B_shared_local_1_lane1_1 = B_shared[((((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 1)];
        float B_shared_local_1_lane2_1 = B_shared[((((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 2)];
        float B_shared_local_1_lane3_1 = B_shared[((((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 3)];
        B_shared_local_1[4] = B_shared_local_1_lane0_1;
        B_shared_local_1[5] = B_shared_local_1_lane1_1;
        B_shared_local_1[6] = B_shared_local_1_lane2_1;
        B_shared_local_1[7] = B_shared_local_1_lane3_1;
      }
      for (int i_3_1 = 0; i_3_1 < 4; ++i_3_1) {
        for (int j_3_1 = 0; j_3_1 < 4; ++j_3_1) {
          matmul_local[((i_3_1 * 4) + j_3_1)] = (matmul_local[((i_3_1 * 4) + j_3_1)] + (A_shared_local_1[i_3_1] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 32)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 32)] + (A_shared_local_1[(i_3_1 + 4)] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 64)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 64)] + (A_shared_local_1[(i_3_1 + 8)] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 96)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 96)] + (A_shared_local_1[(i_3_1 + 12)] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 16)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 16)] + (A_shared_local_1[i_3_1] * B_shared_local_1[(j_3_1 + 4)]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 48)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 48)] + (A_shared_local_1[(i_3_1 + 4)] * B_shared_local_1[(j_3_1 + 4)]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 80)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 80)] + (A_shared_local_1[(i_3_1 + 8)] * B_shared_local_1[(j_3_1 + 4)]));
          matmul_local[(((i_3_1 * 4) + j_3_1) + 112)] = (matmul_local[(((i_3_1 * 4) + j_3_1) + 112)] + (A_shared_local_1[(i_3_1 + 12)] * B_shared_local_1[(j_3_1 + 4)]));
        }
      }
    }
  }
  for (int ax0 = 0; ax0 < 4; ++ax0) {
    {
      float D_lane0 = (max(matmul_local[(ax0 * 4)], 0.000000e+00f) + C[((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4))]);
      float D_lane1 = (max(matmul_local[((ax0 * 4) + 1)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 1)]);
      float D_lane2 = (max(matmul_local[((ax0 * 4) + 2)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 2)]);
      float D_lane3 = (max(matmul_local[((ax0 * 4) + 3)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 3)]);
      D[((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4))] = D_lane0;
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 1)] = D_lane1;
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 2)] = D_lane2;
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 3)] = D_lane3;
    }
    {
      float D_lane0_1 = (max(matmul_local[((ax0 * 4) + 32)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072)]);
      float D_lane1_1 = (max(matmul_local[(((ax0 * 4) + 32) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072) + 1)]);
      float D_lane2_1 = (max(matmul_local[(((ax0 * 4) + 32) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072) + 2)]);
      float D_lane3_1 = (max(matmul_local[(((ax0 * 4) + 32) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072)] = D_lane0_1;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072) + 1)] = D_lane1_1;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072) + 2)] = D_lane2_1;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072) + 3)] = D_lane3_1;
    }
    {
      float D_lane0_2 = (max(matmul_local[((ax0 * 4) + 64)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144)]);
      float D_lane1_2 = (max(matmul_local[(((ax0 * 4) + 64) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144) + 1)]);
      float D_lane2_2 = (max(matmul_local[(((ax0 * 4) + 64) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144) + 2)]);
      float D_lane3_2 = (max(matmul_local[(((ax0 * 4) + 64) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144)] = D_lane0_2;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144) + 1)] = D_lane1_2;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144) + 2)] = D_lane2_2;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144) + 3)] = D_lane3_2;
    }
    {
      float D_lane0_3 = (max(matmul_local[((ax0 * 4) + 96)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216)]);
      float D_lane1_3 = (max(matmul_local[(((ax0 * 4) + 96) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216) + 1)]);
      float D_lane2_3 = (max(matmul_local[(((ax0 * 4) + 96) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216) + 2)]);
      float D_lane3_3 = (max(matmul_local[(((ax0 * 4) + 96) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216)] = D_lane0_3;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216) + 1)] = D_lane1_3;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216) + 2)] = D_lane2_3;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216) + 3)] = D_lane3_3;
    }
    {
      float D_lane0_4 = (max(matmul_local[((ax0 * 4) + 16)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64)]);
      float D_lane1_4 = (max(matmul_local[(((ax0 * 4) + 16) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 1)]);
      float D_lane2_4 = (max(matmul_local[(((ax0 * 4) + 16) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 2)]);
      float D_lane3_4 = (max(matmul_local[(((ax0 * 4) + 16) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64)] = D_lane0_4;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 1)] = D_lane1_4;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 2)] = D_lane2_4;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64) + 3)] = D_lane3_4;
    }
    {
      float D_lane0_5 = (max(matmul_local[((ax0 * 4) + 48)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136)]);
      float D_lane1_5 = (max(matmul_local[(((ax0 * 4) + 48) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136) + 1)]);
      float D_lane2_5 = (max(matmul_local[(((ax0 * 4) + 48) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136) + 2)]);
      float D_lane3_5 = (max(matmul_local[(((ax0 * 4) + 48) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136)] = D_lane0_5;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136) + 1)] = D_lane1_5;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136) + 2)] = D_lane2_5;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136) + 3)] = D_lane3_5;
    }
    {
      float D_lane0_6 = (max(matmul_local[((ax0 * 4) + 80)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208)]);
      float D_lane1_6 = (max(matmul_local[(((ax0 * 4) + 80) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208) + 1)]);
      float D_lane2_6 = (max(matmul_local[(((ax0 * 4) + 80) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208) + 2)]);
      float D_lane3_6 = (max(matmul_local[(((ax0 * 4) + 80) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208)] = D_lane0_6;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208) + 1)] = D_lane1_6;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208) + 2)] = D_lane2_6;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208) + 3)] = D_lane3_6;
    }
    {
      float D_lane0_7 = (max(matmul_local[((ax0 * 4) + 112)], 0.000000e+00f) + C[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280)]);
      float D_lane1_7 = (max(matmul_local[(((ax0 * 4) + 112) + 1)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280) + 1)]);
      float D_lane2_7 = (max(matmul_local[(((ax0 * 4) + 112) + 2)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280) + 2)]);
      float D_lane3_7 = (max(matmul_local[(((ax0 * 4) + 112) + 3)], 0.000000e+00f) + C[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280) + 3)]);
      D[(((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280)] = D_lane0_7;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280) + 1)] = D_lane1_7;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280) + 2)] = D_lane2_7;
      D[((((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280) + 3)] = D_lane3_7;
    }
  }
}
