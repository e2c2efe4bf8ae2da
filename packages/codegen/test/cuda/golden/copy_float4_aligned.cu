extern "C" __global__ void __launch_bounds__(128) copy_float4_aligned_kernel(float* __restrict__ A, float* __restrict__ B) {
  *(float4*)(B + ((((int)blockIdx.x) * 512) + (((int)threadIdx.x) * 4))) = *(float4*)(A + ((((int)blockIdx.x) * 512) + (((int)threadIdx.x) * 4)));
}
