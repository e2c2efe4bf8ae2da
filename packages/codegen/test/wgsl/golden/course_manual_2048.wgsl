// kernel gemm_relu_add_kernel: dispatch (32, 32, 1) workgroups
@group(0) @binding(0) var<storage, read> A : array<f32>;
@group(0) @binding(1) var<storage, read> B : array<f32>;
@group(0) @binding(2) var<storage, read> C : array<f32>;
@group(0) @binding(3) var<storage, read_write> D : array<f32>;
var<workgroup> A_shared : array<f32, 4096>;
var<workgroup> B_shared : array<f32, 4096>;

@compute @workgroup_size(16, 16, 1)
fn gemm_relu_add_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>, @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  var matmul_local : array<f32, 16>;
  for (var k_0 : i32 = 0i; k_0 < 32i; k_0++) {
    workgroupBarrier();
    for (var ax0_ax1_fused_0 : i32 = 0i; ax0_ax1_fused_0 < 16i; ax0_ax1_fused_0++) {
      A_shared[(((ax0_ax1_fused_0 * 256i) + (i32(threadIdx.x) * 16i)) + i32(threadIdx.y))] = A[((((((i32(blockIdx.x) * 131072i) + (ax0_ax1_fused_0 * 8192i)) + ((i32(threadIdx.x) / 4i) * 2048i)) + (k_0 * 64i)) + ((i32(threadIdx.x) % 4i) * 16i)) + i32(threadIdx.y))];
    }
    for (var ax0_ax1_fused_0_1 : i32 = 0i; ax0_ax1_fused_0_1 < 16i; ax0_ax1_fused_0_1++) {
      B_shared[(((ax0_ax1_fused_0_1 * 256i) + (i32(threadIdx.x) * 16i)) + i32(threadIdx.y))] = B[((((((k_0 * 131072i) + (ax0_ax1_fused_0_1 * 8192i)) + ((i32(threadIdx.x) / 4i) * 2048i)) + (i32(blockIdx.y) * 64i)) + ((i32(threadIdx.x) % 4i) * 16i)) + i32(threadIdx.y))];
    }
    workgroupBarrier();
    for (var k_1_0 : i32 = 0i; k_1_0 < 64i; k_1_0++) {
      var A_shared_local : array<f32, 4>;
      var B_shared_local : array<f32, 4>;
      for (var ax0 : i32 = 0i; ax0 < 4i; ax0++) {
        A_shared_local[ax0] = A_shared[(((i32(threadIdx.x) * 256i) + (ax0 * 64i)) + k_1_0)];
      }
      for (var ax0_1 : i32 = 0i; ax0_1 < 4i; ax0_1++) {
        B_shared_local[ax0_1] = B_shared[(((k_1_0 * 64i) + (i32(threadIdx.y) * 4i)) + ax0_1)];
      }
      for (var i_1_1 : i32 = 0i; i_1_1 < 4i; i_1_1++) {
        for (var j_1_1 : i32 = 0i; j_1_1 < 4i; j_1_1++) {
          if (((k_0 * 64i) + k_1_0) == 0i) {
            matmul_local[((i_1_1 * 4i) + j_1_1)] = 0.0f;
          }
          matmul_local[((i_1_1 * 4i) + j_1_1)] = (matmul_local[((i_1_1 * 4i) + j_1_1)] + (A_shared_local[i_1_1] * B_shared_local[j_1_1]));
        }
      }
    }
    for (var ax0_2 : i32 = 0i; ax0_2 < 4i; ax0_2++) {
      for (var ax1 : i32 = 0i; ax1 < 4i; ax1++) {
        D[((((((i32(blockIdx.x) * 131072i) + (i32(threadIdx.x) * 8192i)) + (ax0_2 * 2048i)) + (i32(blockIdx.y) * 64i)) + (i32(threadIdx.y) * 4i)) + ax1)] = (max(matmul_local[((ax0_2 * 4i) + ax1)], 0.0f) + C[((((((i32(blockIdx.x) * 131072i) + (i32(threadIdx.x) * 8192i)) + (ax0_2 * 2048i)) + (i32(blockIdx.y) * 64i)) + (i32(threadIdx.y) * 4i)) + ax1)]);
      }
    }
  }
}
