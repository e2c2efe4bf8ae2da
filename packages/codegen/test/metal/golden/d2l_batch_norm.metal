#include <metal_stdlib>
using namespace metal;

kernel void batch_norm_kernel(device const float* X [[buffer(0)]], device const float* Mean [[buffer(1)]], device const float* Var [[buffer(2)]], device const float* Gamma [[buffer(3)]], device const float* Beta [[buffer(4)]], device float* Y [[buffer(5)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 189)) {
    Y[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 63) * 63) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 63) / 7) * 7)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 7))] = ((((X[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 63) * 63) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 63) / 7) * 7)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 7))] - Mean[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 63)]) / sqrt((Var[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 63)] + 1.000000e-05f))) * Gamma[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 63)]) + Beta[(((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 63)]);
  }
}
