#ifndef TESSERA_FLOAT4_OPERATORS
#define TESSERA_FLOAT4_OPERATORS
// Element-wise arithmetic on float4.
__device__ __forceinline__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
__device__ __forceinline__ float4 operator-(float4 a, float4 b) { return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
__device__ __forceinline__ float4 operator*(float4 a, float4 b) { return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); }
__device__ __forceinline__ float4 operator/(float4 a, float4 b) { return make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w); }
#endif

extern "C" __global__ void __launch_bounds__(256, 1) gemm_relu_add_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C, float* __restrict__ D) {
  float matmul_local[128];
  #pragma unroll
  for (int i_3_init = 0; i_3_init < 4; ++i_3_init) {
    #pragma unroll
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
  __shared__ __align__(16) float A_shared[4156];
  __align__(16) float A_local[8];
  __shared__ __align__(16) float B_shared[2048];
  __align__(16) float B_local[4];
  #pragma unroll
  for (int k_0 = 0; k_0 < 2; ++k_0) {
    if (1 <= k_0) {
      #pragma unroll
      for (int ax0_ax1_fused_1 = 0; ax0_ax1_fused_1 < 2; ++ax0_ax1_fused_1) {
        #pragma unroll
        for (int ax0_ax1_fused_2 = 0; ax0_ax1_fused_2 < 4; ++ax0_ax1_fused_2) {
          A_shared[((((((k_0 + 1) % 2) * 2080) + (ax0_ax1_fused_1 * 1040)) + (ax0_ax1_fused_2 * 260)) + ((int)threadIdx.x))] = A_local[((ax0_ax1_fused_1 * 4) + ax0_ax1_fused_2)];
        }
      }
    }
    if (1 <= k_0) {
      *(float4*)(B_shared + ((((k_0 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4))) = *(float4*)(B_local + 0);
    }
    #pragma unroll
    for (int ax0_ax1_fused_1_1 = 0; ax0_ax1_fused_1_1 < 2; ++ax0_ax1_fused_1_1) {
      *(float4*)(A_local + (ax0_ax1_fused_1_1 * 4)) = *(float4*)(A + (((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0 * 8)) + (ax0_ax1_fused_1_1 * 4)));
    }
    *(float4*)(B_local + 0) = *(float4*)(B + ((((k_0 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)));
  }
  for (int k_0_1 = 0; k_0_1 < 254; ++k_0_1) {
    __syncthreads();
    #pragma unroll
    for (int ax0_ax1_fused_1_2 = 0; ax0_ax1_fused_1_2 < 2; ++ax0_ax1_fused_1_2) {
      #pragma unroll
      for (int ax0_ax1_fused_2_1 = 0; ax0_ax1_fused_2_1 < 4; ++ax0_ax1_fused_2_1) {
        A_shared[((((((k_0_1 + 1) % 2) * 2080) + (ax0_ax1_fused_1_2 * 1040)) + (ax0_ax1_fused_2_1 * 260)) + ((int)threadIdx.x))] = A_local[((ax0_ax1_fused_1_2 * 4) + ax0_ax1_fused_2_1)];
      }
    }
    *(float4*)(B_shared + ((((k_0_1 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4))) = *(float4*)(B_local + 0);
    #pragma unroll
    for (int ax0_ax1_fused_1_3 = 0; ax0_ax1_fused_1_3 < 2; ++ax0_ax1_fused_1_3) {
      *(float4*)(A_local + (ax0_ax1_fused_1_3 * 4)) = *(float4*)(A + ((((((((int)blockIdx.x) / 16) * 524288) + (((int)threadIdx.x) * 2048)) + (k_0_1 * 8)) + (ax0_ax1_fused_1_3 * 4)) + 16));
    }
    *(float4*)(B_local + 0) = *(float4*)(B + (((((k_0_1 * 16384) + ((((int)threadIdx.x) / 32) * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + ((((int)threadIdx.x) % 32) * 4)) + 32768));
    #pragma unroll
    for (int k_1 = 0; k_1 < 8; ++k_1) {
      __align__(16) float A_shared_local[16];
      __align__(16) float B_shared_local[8];
      *(float4*)(A_shared_local + 0) = *(float4*)(A_shared + (((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)));
      *(float4*)(A_shared_local + 4) = *(float4*)(A_shared + ((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64));
      *(float4*)(A_shared_local + 8) = *(float4*)(A_shared + ((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128));
      *(float4*)(A_shared_local + 12) = *(float4*)(A_shared + ((((((k_0_1 % 2) * 2080) + (k_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192));
      *(float4*)(B_shared_local + 0) = *(float4*)(B_shared + (((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)));
      *(float4*)(B_shared_local + 4) = *(float4*)(B_shared + ((((((k_0_1 % 2) * 1024) + (k_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64));
      #pragma unroll
      for (int i_3 = 0; i_3 < 4; ++i_3) {
        #pragma unroll
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
  #pragma unroll
  for (int k_0_2 = 0; k_0_2 < 2; ++k_0_2) {
    __syncthreads();
    if (k_0_2 < 1) {
      #pragma unroll
      for (int ax0_ax1_fused_1_4 = 0; ax0_ax1_fused_1_4 < 2; ++ax0_ax1_fused_1_4) {
        #pragma unroll
        for (int ax0_ax1_fused_2_2 = 0; ax0_ax1_fused_2_2 < 4; ++ax0_ax1_fused_2_2) {
          A_shared[((((((k_0_2 + 1) % 2) * 2080) + (ax0_ax1_fused_1_4 * 1040)) + (ax0_ax1_fused_2_2 * 260)) + ((int)threadIdx.x))] = A_local[((ax0_ax1_fused_1_4 * 4) + ax0_ax1_fused_2_2)];
        }
      }
    }
    if (k_0_2 < 1) {
      *(float4*)(B_shared + ((((k_0_2 + 1) % 2) * 1024) + (((int)threadIdx.x) * 4))) = *(float4*)(B_local + 0);
    }
    #pragma unroll
    for (int k_1_1 = 0; k_1_1 < 8; ++k_1_1) {
      __align__(16) float A_shared_local_1[16];
      __align__(16) float B_shared_local_1[8];
      *(float4*)(A_shared_local_1 + 0) = *(float4*)(A_shared + ((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)));
      *(float4*)(A_shared_local_1 + 4) = *(float4*)(A_shared + (((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 64));
      *(float4*)(A_shared_local_1 + 8) = *(float4*)(A_shared + (((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 128));
      *(float4*)(A_shared_local_1 + 12) = *(float4*)(A_shared + (((((k_0_2 * 2080) + (k_1_1 * 260)) + ((((int)threadIdx.x) / 64) * 16)) + (((((int)threadIdx.x) % 32) / 8) * 4)) + 192));
      *(float4*)(B_shared_local_1 + 0) = *(float4*)(B_shared + ((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)));
      *(float4*)(B_shared_local_1 + 4) = *(float4*)(B_shared + (((((k_0_2 * 1024) + (k_1_1 * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64));
      #pragma unroll
      for (int i_3_1 = 0; i_3_1 < 4; ++i_3_1) {
        #pragma unroll
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
  #pragma unroll
  for (int ax0 = 0; ax0 < 4; ++ax0) {
    *(float4*)(D + ((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4))) = (make_float4(fmaxf(matmul_local[(ax0 * 4)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 1)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 2)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 3)], 0.000000e+00f)) + *(float4*)(C + ((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4))));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 32)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 33)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 34)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 35)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131072)));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 64)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 65)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 66)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 67)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262144)));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 96)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 97)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 98)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 99)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393216)));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 16)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 17)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 18)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 19)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 64)));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 48)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 49)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 50)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 51)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 131136)));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 80)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 81)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 82)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 83)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 262208)));
    *(float4*)(D + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280)) = (make_float4(fmaxf(matmul_local[((ax0 * 4) + 112)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 113)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 114)], 0.000000e+00f), fmaxf(matmul_local[((ax0 * 4) + 115)], 0.000000e+00f)) + *(float4*)(C + (((((((((((int)blockIdx.x) / 16) * 524288) + ((((int)threadIdx.x) / 64) * 32768)) + (((((int)threadIdx.x) % 32) / 8) * 8192)) + (ax0 * 2048)) + ((((int)blockIdx.x) % 16) * 128)) + (((((int)threadIdx.x) % 64) / 32) * 32)) + ((((int)threadIdx.x) % 8) * 4)) + 393280)));
  }
}
