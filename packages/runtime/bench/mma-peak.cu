// Peak throughput of register-only mma.sync on the GPU it runs on: each warp issues `iters` rounds of
// CHAINS independent mma.sync (no memory traffic), fp16 m16n8k16 and tf32 m16n8k8, fp32 accumulate.
// The ceiling a hand or searched mma.sync GEMM can approach (docs/benchmarks/tensor-core-2026-11-29-s11/).
//   nvcc -std=c++17 -gencode=arch=compute_90,code=sm_90 -O3 -o mma-peak packages/runtime/bench/mma-peak.cu && ./mma-peak
#include <cstdio>
#include <cuda_runtime.h>
constexpr int CHAINS = 8;
constexpr int ITERS = 4096;

// One kernel for both shapes: TF32 picks m16n8k8 tf32, otherwise m16n8k16 f16 (the operands' bits
// are arbitrary: only the issue rate is measured).
template <bool TF32>
__global__ void mma_peak(float* out, int iters, unsigned seed) {
  unsigned v = seed ^ threadIdx.x;
  unsigned a[4] = {v, v + 1, v + 2, v + 3}, b[2] = {v * 3, v * 5};
  float c[CHAINS][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) {
      if constexpr (TF32)
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+f"(c[k][0]), "+f"(c[k][1]), "+f"(c[k][2]), "+f"(c[k][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
  float s = 0;
  for (int k = 0; k < CHAINS; ++k) s += c[k][0] + c[k][1] + c[k][2] + c[k][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <typename K>
void time(const char* name, K kernel, double flopsPerMma, int warpsPerBlock) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  float* out;
  cudaMalloc(&out, sms * 8 * 32 * warpsPerBlock * sizeof(float));
  dim3 grid(sms * 8), block(32 * warpsPerBlock);
  kernel<<<grid, block>>>(out, ITERS, 0x3c003c00u);
  cudaEvent_t s, e;
  cudaEventCreate(&s);
  cudaEventCreate(&e);
  cudaEventRecord(s);
  for (int r = 0; r < 5; ++r) kernel<<<grid, block>>>(out, ITERS, 0x3c003c00u);
  cudaEventRecord(e);
  cudaEventSynchronize(e);
  float ms = 0;
  cudaEventElapsedTime(&ms, s, e);
  double mmas = 5.0 * grid.x * warpsPerBlock * (double)ITERS * CHAINS;
  printf("%s: %d SMs, %d warps/block, %d blocks: %.1f TFLOP/s (%s)\n", name, sms, warpsPerBlock, grid.x, mmas * flopsPerMma / (ms * 1e-3) / 1e12,
         cudaGetErrorString(cudaGetLastError()));
  cudaFree(out);
}

int main() {
  for (int w : {4, 8}) {
    time("mma.sync m16n8k16 f16->f32", mma_peak<false>, 2.0 * 16 * 8 * 16, w);
    time("mma.sync m16n8k8 tf32->f32", mma_peak<true>, 2.0 * 16 * 8 * 8, w);
  }
}
