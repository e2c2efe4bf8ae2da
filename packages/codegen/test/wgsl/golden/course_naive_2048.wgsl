// kernel gemm_relu_add_kernel: dispatch (64, 64, 1) workgroups
@group(0) @binding(0) var<storage, read> A : array<f32>;
@group(0) @binding(1) var<storage, read> B : array<f32>;
@group(0) @binding(2) var<storage, read> C : array<f32>;
@group(0) @binding(3) var<storage, read_write> D : array<f32>;

@compute @workgroup_size(32, 32, 1)
fn gemm_relu_add_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>, @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  var matmul : array<f32, 1>;
  for (var k : i32 = 0i; k < 2048i; k++) {
    if (k == 0i) {
      matmul[0i] = 0.0f;
    }
    matmul[0i] = (matmul[0i] + (A[(((i32(blockIdx.x) * 65536i) + (i32(threadIdx.x) * 2048i)) + k)] * B[(((k * 2048i) + (i32(blockIdx.y) * 32i)) + i32(threadIdx.y))]));
  }
  D[((((i32(blockIdx.x) * 65536i) + (i32(threadIdx.x) * 2048i)) + (i32(blockIdx.y) * 32i)) + i32(threadIdx.y))] = (max(matmul[0i], 0.0f) + C[((((i32(blockIdx.x) * 65536i) + (i32(threadIdx.x) * 2048i)) + (i32(blockIdx.y) * 32i)) + i32(threadIdx.y))]);
}
