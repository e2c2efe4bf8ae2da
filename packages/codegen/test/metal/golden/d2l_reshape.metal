#include <metal_stdlib>
using namespace metal;

kernel void reshape_kernel(device const float* X [[buffer(0)]], device float* Y [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 60)) {
    Y[((int)threadIdx.x)] = X[((int)threadIdx.x)];
  }
}
