extern "C" __global__ void __launch_bounds__(256, 2) gemm_relu_add_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C, float* __restrict__ D) {
  float matmul_local[16];
  for (int k_0 = 0; k_0 < 8; ++k_0) {
    __syncthreads();
    __shared__ float A_shared[1024];
    __shared__ float B_shared[1024];
    A_shared[((((int)threadIdx.x) * 16) + ((int)threadIdx.y))] = A[((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 128)) + (k_0 * 16)) + ((int)threadIdx.y))];
    A_shared[(((((int)threadIdx.x) * 16) + ((int)threadIdx.y)) + 256)] = A[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 128)) + (k_0 * 16)) + ((int)threadIdx.y)) + 2048)];
    A_shared[(((((int)threadIdx.x) * 16) + ((int)threadIdx.y)) + 512)] = A[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 128)) + (k_0 * 16)) + ((int)threadIdx.y)) + 4096)];
    A_shared[(((((int)threadIdx.x) * 16) + ((int)threadIdx.y)) + 768)] = A[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 128)) + (k_0 * 16)) + ((int)threadIdx.y)) + 6144)];
    B_shared[((((int)threadIdx.x) * 16) + ((int)threadIdx.y))] = B[(((((k_0 * 2048) + ((((int)threadIdx.x) / 4) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) % 4) * 16)) + ((int)threadIdx.y))];
    B_shared[(((((int)threadIdx.x) * 16) + ((int)threadIdx.y)) + 256)] = B[((((((k_0 * 2048) + ((((int)threadIdx.x) / 4) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) % 4) * 16)) + ((int)threadIdx.y)) + 512)];
    B_shared[(((((int)threadIdx.x) * 16) + ((int)threadIdx.y)) + 512)] = B[((((((k_0 * 2048) + ((((int)threadIdx.x) / 4) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) % 4) * 16)) + ((int)threadIdx.y)) + 1024)];
    B_shared[(((((int)threadIdx.x) * 16) + ((int)threadIdx.y)) + 768)] = B[((((((k_0 * 2048) + ((((int)threadIdx.x) / 4) * 128)) + (((int)blockIdx.y) * 64)) + ((((int)threadIdx.x) % 4) * 16)) + ((int)threadIdx.y)) + 1536)];
    __syncthreads();
    for (int k_1_0 = 0; k_1_0 < 16; ++k_1_0) {
      float A_shared_local[4];
      float B_shared_local[4];
      A_shared_local[0] = A_shared[((((int)threadIdx.x) * 64) + k_1_0)];
      A_shared_local[1] = A_shared[(((((int)threadIdx.x) * 64) + k_1_0) + 16)];
      A_shared_local[2] = A_shared[(((((int)threadIdx.x) * 64) + k_1_0) + 32)];
      A_shared_local[3] = A_shared[(((((int)threadIdx.x) * 64) + k_1_0) + 48)];
      B_shared_local[0] = B_shared[((k_1_0 * 64) + (((int)threadIdx.y) * 4))];
      B_shared_local[1] = B_shared[(((k_1_0 * 64) + (((int)threadIdx.y) * 4)) + 1)];
      B_shared_local[2] = B_shared[(((k_1_0 * 64) + (((int)threadIdx.y) * 4)) + 2)];
      B_shared_local[3] = B_shared[(((k_1_0 * 64) + (((int)threadIdx.y) * 4)) + 3)];
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[0] = 0.000000e+00f;
      }
      matmul_local[0] = (matmul_local[0] + (A_shared_local[0] * B_shared_local[0]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[1] = 0.000000e+00f;
      }
      matmul_local[1] = (matmul_local[1] + (A_shared_local[0] * B_shared_local[1]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[2] = 0.000000e+00f;
      }
      matmul_local[2] = (matmul_local[2] + (A_shared_local[0] * B_shared_local[2]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[3] = 0.000000e+00f;
      }
      matmul_local[3] = (matmul_local[3] + (A_shared_local[0] * B_shared_local[3]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[4] = 0.000000e+00f;
      }
      matmul_local[4] = (matmul_local[4] + (A_shared_local[1] * B_shared_local[0]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[5] = 0.000000e+00f;
      }
      matmul_local[5] = (matmul_local[5] + (A_shared_local[1] * B_shared_local[1]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[6] = 0.000000e+00f;
      }
      matmul_local[6] = (matmul_local[6] + (A_shared_local[1] * B_shared_local[2]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[7] = 0.000000e+00f;
      }
      matmul_local[7] = (matmul_local[7] + (A_shared_local[1] * B_shared_local[3]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[8] = 0.000000e+00f;
      }
      matmul_local[8] = (matmul_local[8] + (A_shared_local[2] * B_shared_local[0]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[9] = 0.000000e+00f;
      }
      matmul_local[9] = (matmul_local[9] + (A_shared_local[2] * B_shared_local[1]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[10] = 0.000000e+00f;
      }
      matmul_local[10] = (matmul_local[10] + (A_shared_local[2] * B_shared_local[2]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[11] = 0.000000e+00f;
      }
      matmul_local[11] = (matmul_local[11] + (A_shared_local[2] * B_shared_local[3]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[12] = 0.000000e+00f;
      }
      matmul_local[12] = (matmul_local[12] + (A_shared_local[3] * B_shared_local[0]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[13] = 0.000000e+00f;
      }
      matmul_local[13] = (matmul_local[13] + (A_shared_local[3] * B_shared_local[1]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[14] = 0.000000e+00f;
      }
      matmul_local[14] = (matmul_local[14] + (A_shared_local[3] * B_shared_local[2]));
      if (((k_0 * 16) + k_1_0) == 0) {
        matmul_local[15] = 0.000000e+00f;
      }
      matmul_local[15] = (matmul_local[15] + (A_shared_local[3] * B_shared_local[3]));
    }
    D[((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4))] = (fmaxf(matmul_local[0], 0.000000e+00f) + C[((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4))]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 1)] = (fmaxf(matmul_local[1], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 1)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 2)] = (fmaxf(matmul_local[2], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 2)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 3)] = (fmaxf(matmul_local[3], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 3)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 128)] = (fmaxf(matmul_local[4], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 128)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 129)] = (fmaxf(matmul_local[5], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 129)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 130)] = (fmaxf(matmul_local[6], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 130)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 131)] = (fmaxf(matmul_local[7], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 131)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 256)] = (fmaxf(matmul_local[8], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 256)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 257)] = (fmaxf(matmul_local[9], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 257)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 258)] = (fmaxf(matmul_local[10], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 258)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 259)] = (fmaxf(matmul_local[11], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 259)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 384)] = (fmaxf(matmul_local[12], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 384)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 385)] = (fmaxf(matmul_local[13], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 385)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 386)] = (fmaxf(matmul_local[14], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 386)]);
    D[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 387)] = (fmaxf(matmul_local[15], 0.000000e+00f) + C[(((((((int)blockIdx.x) * 8192) + (((int)threadIdx.x) * 512)) + (((int)blockIdx.y) * 64)) + (((int)threadIdx.y) * 4)) + 387)]);
  }
}
