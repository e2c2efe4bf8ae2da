#ifndef TESSERA_CP_ASYNC_16_DEFINED
#define TESSERA_CP_ASYNC_16_DEFINED
// cp.async (sm_80+): copies 16 bytes from global to shared memory without passing through
// registers; the copy is complete after a later cp.async.wait_group releases its group.
__device__ __forceinline__ void tessera_cp_async_16(void* dst_shared, const void* src_global) {
  unsigned int dst = static_cast<unsigned int>(__cvta_generic_to_shared(dst_shared));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src_global) : "memory");
}
#endif

#ifndef TESSERA_CP_ASYNC_ZFILL_16_DEFINED
#define TESSERA_CP_ASYNC_ZFILL_16_DEFINED
// As tessera_cp_async_16, but where the predicate is false the copy reads nothing (src-size 0)
// and fills the 16 destination bytes with zeros.
__device__ __forceinline__ void tessera_cp_async_zfill_16(void* dst_shared, const void* src_global, bool predicate) {
  unsigned int dst = static_cast<unsigned int>(__cvta_generic_to_shared(dst_shared));
  int src_bytes = predicate ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(dst), "l"(src_global), "r"(src_bytes) : "memory");
}
#endif

#ifndef TESSERA_CP_ASYNC_GROUP_DEFINED
#define TESSERA_CP_ASYNC_GROUP_DEFINED
// Closes this thread's current group of cp.async copies.
__device__ __forceinline__ void tessera_cp_async_commit_group() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most N of this thread's committed cp.async groups are still in flight.
template <int N>
__device__ __forceinline__ void tessera_cp_async_wait_group() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(N) : "memory");
}
#endif

extern "C" __global__ void __launch_bounds__(32) async_copy_zfill_float4_kernel(float* __restrict__ A, float* __restrict__ B) {
  __shared__ __align__(16) float A_shared[256];
  for (int p = 0; p < 1; ++p) {
    tessera_cp_async_16(A_shared + ((p * 128) + (((int)threadIdx.x) * 4)), A + ((p * 128) + (((int)threadIdx.x) * 4)));
    tessera_cp_async_commit_group();
  }
  for (int k = 0; k < 7; ++k) {
    __syncthreads();
    tessera_cp_async_zfill_16(A_shared + ((((k + 1) % 2) * 128) + (((int)threadIdx.x) * 4)), A + (((k * 128) + (((int)threadIdx.x) * 4)) + 128), ((k * 128) + (((int)threadIdx.x) * 4)) < 872);
    tessera_cp_async_commit_group();
    tessera_cp_async_wait_group<1>();
    __syncthreads();
    for (int j = 0; j < 4; ++j) {
      B[(((k * 128) + (((int)threadIdx.x) * 4)) + j)] = (A_shared[(((((k % 2) * 128) + j) - (((int)threadIdx.x) * 4)) + 124)] * 2.000000e+00f);
    }
  }
  tessera_cp_async_wait_group<0>();
  __syncthreads();
  for (int j_1 = 0; j_1 < 4; ++j_1) {
    B[(((((int)threadIdx.x) * 4) + j_1) + 896)] = (A_shared[((j_1 - (((int)threadIdx.x) * 4)) + 252)] * 2.000000e+00f);
  }
}
