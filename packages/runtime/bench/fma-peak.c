// The fp32 FMA peak of one core, to judge the CPU benchmarks' GFLOPS against: 12 independent chains of
// 512-bit (and 256-bit) fused multiply-adds, timed by the thread's CPU time (so it holds on a loaded machine).
//
//   gcc -O2 -march=native packages/runtime/bench/fma-peak.c -o /tmp/fma-peak && /tmp/fma-peak
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

#define CHAINS 12

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

#ifdef __AVX512F__
__attribute__((noinline)) static float chains512(long iters) {
  __m512 acc[CHAINS];
  const __m512 x = _mm512_set1_ps(1.0000001f), y = _mm512_set1_ps(0.9999999f);
  for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_set1_ps((float)i);
  for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm512_fmadd_ps(acc[i], x, y);
  }
  __m512 s = acc[0];
  for (int i = 1; i < CHAINS; i++) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}
#endif

__attribute__((noinline)) static float chains256(long iters) {
  __m256 acc[CHAINS];
  const __m256 x = _mm256_set1_ps(1.0000001f), y = _mm256_set1_ps(0.9999999f);
  for (int i = 0; i < CHAINS; i++) acc[i] = _mm256_set1_ps((float)i);
  for (long it = 0; it < iters; it++) {
#pragma GCC unroll 12
    for (int i = 0; i < CHAINS; i++) acc[i] = _mm256_fmadd_ps(acc[i], x, y);
  }
  __m256 s = acc[0];
  for (int i = 1; i < CHAINS; i++) s = _mm256_add_ps(s, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0];
}

int main(void) {
  const long iters = 50000000;
  for (int round = 0; round < 3; round++) {
    float sink = 0;
#ifdef __AVX512F__
    double t0 = cpu_seconds();
    sink += chains512(iters);
    printf("zmm: %.1f GFLOPS per core   ", 2.0 * 16 * CHAINS * iters / (cpu_seconds() - t0) / 1e9);
#endif
    double t1 = cpu_seconds();
    sink += chains256(iters);
    printf("ymm: %.1f GFLOPS per core   (%g)\n", 2.0 * 8 * CHAINS * iters / (cpu_seconds() - t1) / 1e9, sink);
  }
  return 0;
}
