#include <metal_stdlib>
using namespace metal;

kernel void conv2d_kernel_0(device const float* X [[buffer(0)]], device float* PaddedX [[buffer(1)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  PaddedX[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 144) * 144) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) / 12) * 12)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12))] = ((((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) < 12) || (132 <= (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144))) || ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12) < 1)) || (11 <= (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12))) ? 0.000000e+00f : X[(((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 144) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 144) / 12) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 12)) - 11)]);
}

kernel void conv2d_kernel_1(device const float* W [[buffer(0)]], device float* Y [[buffer(1)]], device const float* PaddedX [[buffer(2)]], uint3 blockIdx [[threadgroup_position_in_grid]], uint3 threadIdx [[thread_position_in_threadgroup]]) {
  for (int ric = 0; ric < 4; ++ric) {
    for (int rkh = 0; rkh < 3; ++rkh) {
      for (int rkw = 0; rkw < 3; ++rkw) {
        if ((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) < 600)) {
          if ((((ric == 0) && (rkh == 0)) && (rkw == 0))) {
            Y[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] = 0.000000e+00f;
          }
          Y[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] = (Y[((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 100) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 10)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10))] + (PaddedX[(((((ric * 144) + (((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 100) / 10) * 12)) + (rkh * 12)) + (((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) % 10)) + rkw)] * W[(((((((((int)blockIdx.x) * 64) + ((int)threadIdx.x)) / 100) * 36) + (ric * 9)) + (rkh * 3)) + rkw)]));
        }
      }
    }
  }
}
