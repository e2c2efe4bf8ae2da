extern "C" __global__ void __launch_bounds__(256) bits_and_hints_kernel(int* __restrict__ A, int* __restrict__ B, float* __restrict__ X, float* __restrict__ Y) {
  B[((int)threadIdx.x)] = (((A[((int)threadIdx.x)] << 3) ^ (A[((int)threadIdx.x)] >> (((int)threadIdx.x) & 7))) | (~A[((int)threadIdx.x)]));
  Y[((int)threadIdx.x)] = (((X[((int)threadIdx.x)] > 1.000000e+00f)) ? rsqrtf(X[((int)threadIdx.x)]) : X[((int)threadIdx.x)]);
}
