#ifndef TESSERA_CP_ASYNC_4_DEFINED
#define TESSERA_CP_ASYNC_4_DEFINED
// cp.async (sm_80+): copies 4 bytes from global to shared memory without passing through
// registers; the copy is complete after a later cp.async.wait_group releases its group.
__device__ __forceinline__ void tessera_cp_async_4(void* dst_shared, const void* src_global) {
  unsigned int dst = static_cast<unsigned int>(__cvta_generic_to_shared(dst_shared));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(dst), "l"(src_global) : "memory");
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

#ifndef TESSERA_CP_ASYNC_WAIT_DYNAMIC_DEFINED
#define TESSERA_CP_ASYNC_WAIT_DYNAMIC_DEFINED
// cp.async.wait_group with a count known only at run time. Counts above
// 7 wait for 7 (waiting for more groups than asked is always safe).
__device__ __forceinline__ void tessera_cp_async_wait_group_dynamic(int n) {
  switch (n < 0 ? 0 : n) {
    case 0: tessera_cp_async_wait_group<0>(); break;
    case 1: tessera_cp_async_wait_group<1>(); break;
    case 2: tessera_cp_async_wait_group<2>(); break;
    case 3: tessera_cp_async_wait_group<3>(); break;
    case 4: tessera_cp_async_wait_group<4>(); break;
    case 5: tessera_cp_async_wait_group<5>(); break;
    case 6: tessera_cp_async_wait_group<6>(); break;
    default: tessera_cp_async_wait_group<7>(); break;
  }
}
#endif

extern "C" __global__ void __launch_bounds__(32) async_copy_3stage_float_kernel(float* __restrict__ A, float* __restrict__ B) {
  __shared__ float A_shared[96];
  for (int p = 0; p < 2; ++p) {
    tessera_cp_async_4(A_shared + ((p * 32) + ((int)threadIdx.x)), A + ((p * 32) + ((int)threadIdx.x)));
    tessera_cp_async_commit_group();
  }
  for (int k = 0; k < 6; ++k) {
    __syncthreads();
    tessera_cp_async_4(A_shared + ((((k + 2) % 3) * 32) + ((int)threadIdx.x)), A + (((k * 32) + ((int)threadIdx.x)) + 64));
    tessera_cp_async_commit_group();
    tessera_cp_async_wait_group<2>();
    __syncthreads();
    for (int j = 0; j < 1; ++j) {
      B[(((k * 32) + ((int)threadIdx.x)) + j)] = (A_shared[(((((k % 3) * 32) + j) - ((int)threadIdx.x)) + 31)] * 2.000000e+00f);
    }
  }
  for (int e = 0; e < 2; ++e) {
    tessera_cp_async_wait_group_dynamic((1 - e));
    __syncthreads();
    for (int j_1 = 0; j_1 < 1; ++j_1) {
      B[((((e * 32) + ((int)threadIdx.x)) + j_1) + 192)] = (A_shared[((((e * 32) + j_1) - ((int)threadIdx.x)) + 31)] * 2.000000e+00f);
    }
  }
}
