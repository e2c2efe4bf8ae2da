#include <metal_stdlib>
using namespace metal;

kernel void transpose_kernel(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 315)) {
    Y[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 35) * 35) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 35) / 7) * 7)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 7))] = X[(((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 35) / 7) * 63) + ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 7) * 9)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 35))];
  }
}
