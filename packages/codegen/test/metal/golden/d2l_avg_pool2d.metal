#include <metal_stdlib>
using namespace metal;

kernel void avg_pool2d_kernel_0(device const float* X [[buffer(0)]], device float* PaddedX [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 432)) {
    PaddedX[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 144) * 144) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) / 12) * 12)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12))] = ((((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) < 12) || (132 <= (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144))) || ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12) < 1)) || (11 <= (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12))) ? 0.000000e+00f : X[(((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 144) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) / 12) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12)) - 11)]);
  }
}

kernel void avg_pool2d_kernel_1(device const float* PaddedX [[buffer(0)]], device float* PoolSum [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  for (int rkh = 0; rkh < 3; ++rkh) {
    for (int rkw = 0; rkw < 3; ++rkw) {
      if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 300)) {
        if (((rkh == 0) && (rkw == 0))) {
          PoolSum[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] = 0.000000e+00f;
        }
        PoolSum[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] = (PoolSum[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] + PaddedX[((((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 144) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 12)) + (rkh * 12)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10)) + rkw)]);
      }
    }
  }
}

kernel void avg_pool2d_kernel_2(device float* PoolAvg [[buffer(0)]], device const float* PoolSum [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 300)) {
    PoolAvg[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] = (PoolSum[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] / 9.000000e+00f);
  }
}
