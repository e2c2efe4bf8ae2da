#include <metal_stdlib>
using namespace metal;

kernel void max_pool2d_kernel_0(device const float* X [[buffer(0)]], device float* PaddedX [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 432)) {
    PaddedX[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 144) * 144) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) / 12) * 12)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12))] = ((((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) < 12) || (132 <= (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144))) || ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12) < 1)) || (11 <= (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12))) ? -3.40282347e+38f : X[(((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 144) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) / 12) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12)) - 11)]);
  }
}

kernel void max_pool2d_kernel_1(device float* PoolMax [[buffer(0)]], device const float* PaddedX [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  for (int rkh = 0; rkh < 3; ++rkh) {
    for (int rkw = 0; rkw < 3; ++rkw) {
      if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 75)) {
        if (((rkh == 0) && (rkw == 0))) {
          PoolMax[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 25) * 25) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 25) / 5) * 5)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 5))] = -3.40282347e+38f;
        }
        PoolMax[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 25) * 25) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 25) / 5) * 5)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 5))] = max(PoolMax[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 25) * 25) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 25) / 5) * 5)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 5))], PaddedX[((((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 25) * 144) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 25) / 5) * 24)) + (rkh * 12)) + ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 5) * 2)) + rkw)]);
      }
    }
  }
}
