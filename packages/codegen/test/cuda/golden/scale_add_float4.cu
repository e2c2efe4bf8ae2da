#ifndef TESSERA_FLOAT4_OPERATORS
#define TESSERA_FLOAT4_OPERATORS
// Element-wise arithmetic on float4.
__device__ __forceinline__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
__device__ __forceinline__ float4 operator-(float4 a, float4 b) { return make_float4(a.x - b.x, a.y - b.y, a.z - b.z, a.w - b.w); }
__device__ __forceinline__ float4 operator*(float4 a, float4 b) { return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w); }
__device__ __forceinline__ float4 operator/(float4 a, float4 b) { return make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w); }
#endif

extern "C" __global__ void __launch_bounds__(128) scale_add_float4_kernel(float* __restrict__ A, float* __restrict__ B, float* __restrict__ C, float alpha) {
  __shared__ __align__(16) float S[512];
  *(float4*)(S + (((int)threadIdx.x) * 4)) = ((*(float4*)(A + (((int)threadIdx.x) * 4)) * make_float4(alpha, alpha, alpha, alpha)) + *(float4*)(B + (((int)threadIdx.x) * 4)));
  __syncthreads();
  C[(((int)threadIdx.x) * 4)] = S[(511 - (((int)threadIdx.x) * 4))];
}
