// `python3 run.py` on a CUDA machine (nvcc -O3 -arch=sm_90a -o x3 x3.cu first): the max |error| against
// float64 of seeded uniform [-1, 1) GEMMs at 2048³ and 4096³ for several ways of accumulating the three
// tf32 products of 3xTF32 on mma.sync m16n8k8, beside torch SGEMM (TF32 off). A naive kernel (one warp
// per 16×8 output tile, operands from global memory): an accuracy experiment, not a fast kernel.
// 3xTF32 accuracy experiment: which accumulation scheme gives SGEMM-level error on this GPU.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

__device__ __forceinline__ float tf32_rna(float x) {
  uint32_t r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x)); return __uint_as_float(r);
}
__device__ __forceinline__ float tf32_rz(float x) { return __uint_as_float(__float_as_uint(x) & 0xffffe000u); }

__device__ __forceinline__ void mma(float* c, const float* a, const float* b) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(__float_as_uint(a[0])), "r"(__float_as_uint(a[1])), "r"(__float_as_uint(a[2])), "r"(__float_as_uint(a[3])),
                 "r"(__float_as_uint(b[0])), "r"(__float_as_uint(b[1])));
}

// variant: 0 big+small (current), 1 all three into one acc, 2 chunked all-in-chunk flush every kc,
// 3 big chunked + small separate, 4 hi*hi only (vs exact hi*hi ref), 5 ffma hi*hi in k order,
// 6 current but rz split, 7 small first then big (order lo*hi, hi*lo, hi*hi) into one acc per k-step, 8 per-mma flush of big into fp32 via zero-C
__global__ void gemm(int variant, int kc, int n, const float* A, const float* B, float* C) {
  int lane = threadIdx.x & 31;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int tilesN = n / 8;
  int tm = warp / tilesN, tn = warp % tilesN;
  if (tm * 16 >= n) return;
  int g = lane >> 2, t = lane & 3;
  float big[4] = {0, 0, 0, 0}, small[4] = {0, 0, 0, 0}, chunk[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < n; k0 += 8) {
    float a[4], b[2];
    a[0] = A[(tm * 16 + g) * n + k0 + t];
    a[1] = A[(tm * 16 + g + 8) * n + k0 + t];
    a[2] = A[(tm * 16 + g) * n + k0 + t + 4];
    a[3] = A[(tm * 16 + g + 8) * n + k0 + t + 4];
    b[0] = B[(k0 + t) * n + tn * 8 + g];
    b[1] = B[(k0 + t + 4) * n + tn * 8 + g];
    float ah[4], al[4], bh[2], bl[2];
    for (int i = 0; i < 4; ++i) {
      ah[i] = variant == 6 ? tf32_rz(a[i]) : tf32_rna(a[i]);
      al[i] = tf32_rna(a[i] - ah[i]);
    }
    for (int i = 0; i < 2; ++i) {
      bh[i] = variant == 6 ? tf32_rz(b[i]) : tf32_rna(b[i]);
      bl[i] = tf32_rna(b[i] - bh[i]);
    }
    if (variant == 0 || variant == 6) { mma(small, al, bh); mma(small, ah, bl); mma(big, ah, bh); }
    else if (variant == 1) { mma(big, al, bh); mma(big, ah, bl); mma(big, ah, bh); }
    else if (variant == 7) { mma(big, ah, bh); mma(big, al, bh); mma(big, ah, bl); }
    else if (variant == 2) {
      mma(chunk, al, bh); mma(chunk, ah, bl); mma(chunk, ah, bh);
      if ((k0 + 8) % kc == 0) for (int i = 0; i < 4; ++i) { big[i] += chunk[i]; chunk[i] = 0; }
    } else if (variant == 3) {
      mma(small, al, bh); mma(small, ah, bl); mma(chunk, ah, bh);
      if ((k0 + 8) % kc == 0) for (int i = 0; i < 4; ++i) { big[i] += chunk[i]; chunk[i] = 0; }
    } else if (variant == 4) { mma(big, ah, bh); }
    else if (variant == 5) {
      // ffma of hi*hi in k order, each lane its four outputs
      for (int i = 0; i < 4; ++i) {
        int row = tm * 16 + g + 8 * (i / 2), col = tn * 8 + 2 * t + (i % 2);
        for (int kk = 0; kk < 8; ++kk) big[i] = fmaf(tf32_rna(A[row * n + k0 + kk]), tf32_rna(B[(k0 + kk) * n + col]), big[i]);
      }
    } else if (variant == 9) {
      // ffma fp32 full precision (SGEMM-like)
      for (int i = 0; i < 4; ++i) {
        int row = tm * 16 + g + 8 * (i / 2), col = tn * 8 + 2 * t + (i % 2);
        for (int kk = 0; kk < 8; ++kk) big[i] = fmaf(A[row * n + k0 + kk], B[(k0 + kk) * n + col], big[i]);
      }
    }
  }
  for (int i = 0; i < 4; ++i) {
    int row = tm * 16 + g + 8 * (i / 2), col = tn * 8 + 2 * t + (i % 2);
    C[row * n + col] = big[i] + small[i] + chunk[i];
  }
}

// float64 reference; hiOnly: products of the tf32 (rna) parts
__global__ void ref(int n, const float* A, const float* B, double* R, int hiOnly) {
  int row = blockIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= n) return;
  double s = 0;
  for (int k = 0; k < n; ++k) {
    float a = A[row * n + k], b = B[k * n + col];
    if (hiOnly) { a = tf32_rna(a); b = tf32_rna(b); }
    s += (double)a * (double)b;
  }
  R[row * n + col] = s;
}

static double maxerr(const std::vector<float>& c, const std::vector<double>& r, double* mean) {
  double m = 0, s = 0;
  for (size_t i = 0; i < c.size(); ++i) { double e = fabs((double)c[i] - r[i]); m = fmax(m, e); s += e; }
  *mean = s / c.size();
  return m;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  size_t N = (size_t)n * n;
  std::vector<float> hA(N), hB(N);
  FILE* f = fopen("A.bin", "rb"); fread(hA.data(), 4, N, f); fclose(f);
  f = fopen("B.bin", "rb"); fread(hB.data(), 4, N, f); fclose(f);
  float *A, *B, *C; double* R;
  cudaMalloc(&A, N * 4); cudaMalloc(&B, N * 4); cudaMalloc(&C, N * 4); cudaMalloc(&R, N * 8);
  cudaMemcpy(A, hA.data(), N * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(B, hB.data(), N * 4, cudaMemcpyHostToDevice);
  std::vector<double> ref64(N), refHi(N);
  ref<<<dim3((n + 127) / 128, n), 128>>>(n, A, B, R, 0); cudaMemcpy(ref64.data(), R, N * 8, cudaMemcpyDeviceToHost);
  ref<<<dim3((n + 127) / 128, n), 128>>>(n, A, B, R, 1); cudaMemcpy(refHi.data(), R, N * 8, cudaMemcpyDeviceToHost);
  std::vector<float> hC(N);
  double mean;
  struct V { int v, kc; const char* name; int hiRef; } vs[] = {
    {0, 0, "current: small(lo*hi,hi*lo) + big(hi*hi)", 0},
    {1, 0, "one acc: lo*hi, hi*lo, hi*hi", 0},
    {7, 0, "one acc: hi*hi, lo*hi, hi*lo", 0},
    {2, 8, "chunk all 3, flush every 8 k", 0},
    {2, 32, "chunk all 3, flush every 32 k", 0},
    {2, 128, "chunk all 3, flush every 128 k", 0},
    {3, 8, "small separate + big flushed every 8 k", 0},
    {3, 32, "small separate + big flushed every 32 k", 0},
    {3, 128, "small separate + big flushed every 128 k", 0},
    {6, 0, "current with rz split", 0},
    {9, 0, "ffma fp32 k order", 0},
    {4, 0, "hi*hi mma only vs exact hi*hi", 1},
    {5, 0, "hi*hi ffma k order vs exact hi*hi", 1},
  };
  int warps = (n / 16) * (n / 8);
  for (auto& v : vs) {
    gemm<<<(warps * 32 + 255) / 256, 256>>>(v.v, v.kc, n, A, B, C);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    cudaMemcpy(hC.data(), C, N * 4, cudaMemcpyDeviceToHost);
    double worst = maxerr(hC, v.hiRef ? refHi : ref64, &mean);
    printf("%-48s max %.3e mean %.3e\n", v.name, worst, mean);
  }
  return 0;
}
