#ifndef TESSERA_FLOORDIV_DEFINED
#define TESSERA_FLOORDIV_DEFINED
// Floor division and modulo (C's / and % truncate toward zero).
__device__ __forceinline__ int tessera_floordiv(int a, int b) {
  int q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ int tessera_floormod(int a, int b) {
  int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
__device__ __forceinline__ long long tessera_floordiv(long long a, long long b) {
  long long q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}
__device__ __forceinline__ long long tessera_floormod(long long a, long long b) {
  long long r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
#endif

extern "C" __global__ void __launch_bounds__(256) shifted_activation_kernel(float* __restrict__ A, float* __restrict__ B, int shift) {
  B[((int)threadIdx.x)] = (((A[tessera_floormod((((int)threadIdx.x) - shift), 256)] > 0.000000e+00f) ? expf(A[tessera_floormod((((int)threadIdx.x) - shift), 256)]) : sqrtf(((((float)tessera_floordiv((((int)threadIdx.x) - shift), 16)) * 1.000000e-01f) + 2.000000e+00f))) + (((((int)threadIdx.x) % 2) == 0) ? 1.000000e+00f : -1.000000e+00f));
}
