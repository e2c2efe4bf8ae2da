// kernel gemm_relu_add_kernel: dispatch (128, 1, 1) workgroups
@group(0) @binding(0) var<storage, read> A : array<f32>;
@group(0) @binding(1) var<storage, read> B : array<f32>;
@group(0) @binding(2) var<storage, read> C : array<f32>;
@group(0) @binding(3) var<storage, read_write> D : array<f32>;
var<workgroup> A_shared : array<f32, 4156>;
var<workgroup> B_shared : array<f32, 2048>;

@compute @workgroup_size(256, 1, 1)
fn gemm_relu_add_kernel(@builtin(workgroup_id) blockIdx : vec3<u32>, @builtin(local_invocation_id) threadIdx : vec3<u32>) {
  var matmul_local : array<f32, 128>;
  for (var i_3_init : i32 = 0i; i_3_init < 4i; i_3_init++) {
    for (var j_3_init : i32 = 0i; j_3_init < 4i; j_3_init++) {
      matmul_local[((i_3_init * 4i) + j_3_init)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 32i)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 64i)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 96i)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 16i)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 48i)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 80i)] = 0.0f;
      matmul_local[(((i_3_init * 4i) + j_3_init) + 112i)] = 0.0f;
    }
  }
  var A_local : array<f32, 8>;
  var B_local : array<f32, 4>;
  for (var k_0 : i32 = 0i; k_0 < 2i; k_0++) {
    if (1i <= k_0) {
      for (var ax0_ax1_fused_1 : i32 = 0i; ax0_ax1_fused_1 < 2i; ax0_ax1_fused_1++) {
        for (var ax0_ax1_fused_2 : i32 = 0i; ax0_ax1_fused_2 < 4i; ax0_ax1_fused_2++) {
          A_shared[((((((k_0 + 1i) % 2i) * 2080i) + (ax0_ax1_fused_1 * 1040i)) + (ax0_ax1_fused_2 * 260i)) + i32(threadIdx.x))] = A_local[((ax0_ax1_fused_1 * 4i) + ax0_ax1_fused_2)];
        }
      }
    }
    if (1i <= k_0) {
      {
        let B_shared_lane0 : f32 = B_local[0i];
        let B_shared_lane1 : f32 = B_local[1i];
        let B_shared_lane2 : f32 = B_local[2i];
        let B_shared_lane3 : f32 = B_local[3i];
        B_shared[((((k_0 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i))] = B_shared_lane0;
        B_shared[(((((k_0 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 1i)] = B_shared_lane1;
        B_shared[(((((k_0 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 2i)] = B_shared_lane2;
        B_shared[(((((k_0 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 3i)] = B_shared_lane3;
      }
    }
    for (var ax0_ax1_fused_1_1 : i32 = 0i; ax0_ax1_fused_1_1 < 2i; ax0_ax1_fused_1_1++) {
      {
        let A_local_lane0 : f32 = A[(((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0 * 8i)) + (ax0_ax1_fused_1_1 * 4i))];
        let A_local_lane1 : f32 = A[((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0 * 8i)) + (ax0_ax1_fused_1_1 * 4i)) + 1i)];
        let A_local_lane2 : f32 = A[((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0 * 8i)) + (ax0_ax1_fused_1_1 * 4i)) + 2i)];
        let A_local_lane3 : f32 = A[((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0 * 8i)) + (ax0_ax1_fused_1_1 * 4i)) + 3i)];
        A_local[(ax0_ax1_fused_1_1 * 4i)] = A_local_lane0;
        A_local[((ax0_ax1_fused_1_1 * 4i) + 1i)] = A_local_lane1;
        A_local[((ax0_ax1_fused_1_1 * 4i) + 2i)] = A_local_lane2;
        A_local[((ax0_ax1_fused_1_1 * 4i) + 3i)] = A_local_lane3;
      }
    }
    {
      let B_local_lane0 : f32 = B[((((k_0 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i))];
      let B_local_lane1 : f32 = B[(((((k_0 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 1i)];
      let B_local_lane2 : f32 = B[(((((k_0 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 2i)];
      let B_local_lane3 : f32 = B[(((((k_0 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 3i)];
      B_local[0i] = B_local_lane0;
      B_local[1i] = B_local_lane1;
      B_local[2i] = B_local_lane2;
      B_local[3i] = B_local_lane3;
    }
  }
  for (var k_0_1 : i32 = 0i; k_0_1 < 254i; k_0_1++) {
    workgroupBarrier();
    for (var ax0_ax1_fused_1_2 : i32 = 0i; ax0_ax1_fused_1_2 < 2i; ax0_ax1_fused_1_2++) {
      for (var ax0_ax1_fused_2_1 : i32 = 0i; ax0_ax1_fused_2_1 < 4i; ax0_ax1_fused_2_1++) {
        A_shared[((((((k_0_1 + 1i) % 2i) * 2080i) + (ax0_ax1_fused_1_2 * 1040i)) + (ax0_ax1_fused_2_1 * 260i)) + i32(threadIdx.x))] = A_local[((ax0_ax1_fused_1_2 * 4i) + ax0_ax1_fused_2_1)];
      }
    }
    {
      let B_shared_lane0_1 : f32 = B_local[0i];
      let B_shared_lane1_1 : f32 = B_local[1i];
      let B_shared_lane2_1 : f32 = B_local[2i];
      let B_shared_lane3_1 : f32 = B_local[3i];
      B_shared[((((k_0_1 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i))] = B_shared_lane0_1;
      B_shared[(((((k_0_1 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 1i)] = B_shared_lane1_1;
      B_shared[(((((k_0_1 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 2i)] = B_shared_lane2_1;
      B_shared[(((((k_0_1 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 3i)] = B_shared_lane3_1;
    }
    for (var ax0_ax1_fused_1_3 : i32 = 0i; ax0_ax1_fused_1_3 < 2i; ax0_ax1_fused_1_3++) {
      {
        let A_local_lane0_1 : f32 = A[((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0_1 * 8i)) + (ax0_ax1_fused_1_3 * 4i)) + 16i)];
        let A_local_lane1_1 : f32 = A[(((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0_1 * 8i)) + (ax0_ax1_fused_1_3 * 4i)) + 16i) + 1i)];
        let A_local_lane2_1 : f32 = A[(((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0_1 * 8i)) + (ax0_ax1_fused_1_3 * 4i)) + 16i) + 2i)];
        let A_local_lane3_1 : f32 = A[(((((((i32(blockIdx.x) / 16i) * 524288i) + (i32(threadIdx.x) * 2048i)) + (k_0_1 * 8i)) + (ax0_ax1_fused_1_3 * 4i)) + 16i) + 3i)];
        A_local[(ax0_ax1_fused_1_3 * 4i)] = A_local_lane0_1;
        A_local[((ax0_ax1_fused_1_3 * 4i) + 1i)] = A_local_lane1_1;
        A_local[((ax0_ax1_fused_1_3 * 4i) + 2i)] = A_local_lane2_1;
        A_local[((ax0_ax1_fused_1_3 * 4i) + 3i)] = A_local_lane3_1;
      }
    }
    {
      let B_local_lane0_1 : f32 = B[(((((k_0_1 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 32768i)];
      let B_local_lane1_1 : f32 = B[((((((k_0_1 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 32768i) + 1i)];
      let B_local_lane2_1 : f32 = B[((((((k_0_1 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 32768i) + 2i)];
      let B_local_lane3_1 : f32 = B[((((((k_0_1 * 16384i) + ((i32(threadIdx.x) / 32i) * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + ((i32(threadIdx.x) % 32i) * 4i)) + 32768i) + 3i)];
      B_local[0i] = B_local_lane0_1;
      B_local[1i] = B_local_lane1_1;
      B_local[2i] = B_local_lane2_1;
      B_local[3i] = B_local_lane3_1;
    }
    for (var k_1 : i32 = 0i; k_1 < 8i; k_1++) {
      var A_shared_local : array<f32, 16>;
      var B_shared_local : array<f32, 8>;
      {
        let A_shared_local_lane0 : f32 = A_shared[(((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i))];
        let A_shared_local_lane1 : f32 = A_shared[((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 1i)];
        let A_shared_local_lane2 : f32 = A_shared[((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 2i)];
        let A_shared_local_lane3 : f32 = A_shared[((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 3i)];
        A_shared_local[0i] = A_shared_local_lane0;
        A_shared_local[1i] = A_shared_local_lane1;
        A_shared_local[2i] = A_shared_local_lane2;
        A_shared_local[3i] = A_shared_local_lane3;
      }
      {
        let A_shared_local_lane0_1 : f32 = A_shared[((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i)];
        let A_shared_local_lane1_1 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i) + 1i)];
        let A_shared_local_lane2_1 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i) + 2i)];
        let A_shared_local_lane3_1 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i) + 3i)];
        A_shared_local[4i] = A_shared_local_lane0_1;
        A_shared_local[5i] = A_shared_local_lane1_1;
        A_shared_local[6i] = A_shared_local_lane2_1;
        A_shared_local[7i] = A_shared_local_lane3_1;
      }
      {
        let A_shared_local_lane0_2 : f32 = A_shared[((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i)];
        let A_shared_local_lane1_2 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i) + 1i)];
        let A_shared_local_lane2_2 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i) + 2i)];
        let A_shared_local_lane3_2 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i) + 3i)];
        A_shared_local[8i] = A_shared_local_lane0_2;
        A_shared_local[9i] = A_shared_local_lane1_2;
        A_shared_local[10i] = A_shared_local_lane2_2;
        A_shared_local[11i] = A_shared_local_lane3_2;
      }
      {
        let A_shared_local_lane0_3 : f32 = A_shared[((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i)];
        let A_shared_local_lane1_3 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i) + 1i)];
        let A_shared_local_lane2_3 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i) + 2i)];
        let A_shared_local_lane3_3 : f32 = A_shared[(((((((k_0_1 % 2i) * 2080i) + (k_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i) + 3i)];
        A_shared_local[12i] = A_shared_local_lane0_3;
        A_shared_local[13i] = A_shared_local_lane1_3;
        A_shared_local[14i] = A_shared_local_lane2_3;
        A_shared_local[15i] = A_shared_local_lane3_3;
      }
      {
        let B_shared_local_lane0 : f32 = B_shared[(((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i))];
        let B_shared_local_lane1 : f32 = B_shared[((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 1i)];
        let B_shared_local_lane2 : f32 = B_shared[((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 2i)];
        let B_shared_local_lane3 : f32 = B_shared[((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 3i)];
        B_shared_local[0i] = B_shared_local_lane0;
        B_shared_local[1i] = B_shared_local_lane1;
        B_shared_local[2i] = B_shared_local_lane2;
        B_shared_local[3i] = B_shared_local_lane3;
      }
      {
        let B_shared_local_lane0_1 : f32 = B_shared[((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i)];
        let B_shared_local_lane1_1 : f32 = B_shared[(((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 1i)];
        let B_shared_local_lane2_1 : f32 = B_shared[(((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 2i)];
        let B_shared_local_lane3_1 : f32 = B_shared[(((((((k_0_1 % 2i) * 1024i) + (k_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 3i)];
        B_shared_local[4i] = B_shared_local_lane0_1;
        B_shared_local[5i] = B_shared_local_lane1_1;
        B_shared_local[6i] = B_shared_local_lane2_1;
        B_shared_local[7i] = B_shared_local_lane3_1;
      }
      for (var i_3 : i32 = 0i; i_3 < 4i; i_3++) {
        for (var j_3 : i32 = 0i; j_3 < 4i; j_3++) {
          matmul_local[((i_3 * 4i) + j_3)] = (matmul_local[((i_3 * 4i) + j_3)] + (A_shared_local[i_3] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4i) + j_3) + 32i)] = (matmul_local[(((i_3 * 4i) + j_3) + 32i)] + (A_shared_local[(i_3 + 4i)] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4i) + j_3) + 64i)] = (matmul_local[(((i_3 * 4i) + j_3) + 64i)] + (A_shared_local[(i_3 + 8i)] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4i) + j_3) + 96i)] = (matmul_local[(((i_3 * 4i) + j_3) + 96i)] + (A_shared_local[(i_3 + 12i)] * B_shared_local[j_3]));
          matmul_local[(((i_3 * 4i) + j_3) + 16i)] = (matmul_local[(((i_3 * 4i) + j_3) + 16i)] + (A_shared_local[i_3] * B_shared_local[(j_3 + 4i)]));
          matmul_local[(((i_3 * 4i) + j_3) + 48i)] = (matmul_local[(((i_3 * 4i) + j_3) + 48i)] + (A_shared_local[(i_3 + 4i)] * B_shared_local[(j_3 + 4i)]));
          matmul_local[(((i_3 * 4i) + j_3) + 80i)] = (matmul_local[(((i_3 * 4i) + j_3) + 80i)] + (A_shared_local[(i_3 + 8i)] * B_shared_local[(j_3 + 4i)]));
          matmul_local[(((i_3 * 4i) + j_3) + 112i)] = (matmul_local[(((i_3 * 4i) + j_3) + 112i)] + (A_shared_local[(i_3 + 12i)] * B_shared_local[(j_3 + 4i)]));
        }
      }
    }
  }
  for (var k_0_2 : i32 = 0i; k_0_2 < 2i; k_0_2++) {
    workgroupBarrier();
    if (k_0_2 < 1i) {
      for (var ax0_ax1_fused_1_4 : i32 = 0i; ax0_ax1_fused_1_4 < 2i; ax0_ax1_fused_1_4++) {
        for (var ax0_ax1_fused_2_2 : i32 = 0i; ax0_ax1_fused_2_2 < 4i; ax0_ax1_fused_2_2++) {
          A_shared[((((((k_0_2 + 1i) % 2i) * 2080i) + (ax0_ax1_fused_1_4 * 1040i)) + (ax0_ax1_fused_2_2 * 260i)) + i32(threadIdx.x))] = A_local[((ax0_ax1_fused_1_4 * 4i) + ax0_ax1_fused_2_2)];
        }
      }
    }
    if (k_0_2 < 1i) {
      {
        let B_shared_lane0_2 : f32 = B_local[0i];
        let B_shared_lane1_2 : f32 = B_local[1i];
        let B_shared_lane2_2 : f32 = B_local[2i];
        let B_shared_lane3_2 : f32 = B_local[3i];
        B_shared[((((k_0_2 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i))] = B_shared_lane0_2;
        B_shared[(((((k_0_2 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 1i)] = B_shared_lane1_2;
        B_shared[(((((k_0_2 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 2i)] = B_shared_lane2_2;
        B_shared[(((((k_0_2 + 1i) % 2i) * 1024i) + (i32(threadIdx.x) * 4i)) + 3i)] = B_shared_lane3_2;
      }
    }
    for (var k_1_1 : i32 = 0i; k_1_1 < 8i; k_1_1++) {
      var A_shared_local_1 : array<f32, 16>;
      var B_shared_local_1 : array<f32, 8>;
      {
        let A_shared_local_1_lane0 : f32 = A_shared[((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i))];
        let A_shared_local_1_lane1 : f32 = A_shared[(((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 1i)];
        let A_shared_local_1_lane2 : f32 = A_shared[(((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 2i)];
        let A_shared_local_1_lane3 : f32 = A_shared[(((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 3i)];
        A_shared_local_1[0i] = A_shared_local_1_lane0;
        A_shared_local_1[1i] = A_shared_local_1_lane1;
        A_shared_local_1[2i] = A_shared_local_1_lane2;
        A_shared_local_1[3i] = A_shared_local_1_lane3;
      }
      {
        let A_shared_local_1_lane0_1 : f32 = A_shared[(((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i)];
        let A_shared_local_1_lane1_1 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i) + 1i)];
        let A_shared_local_1_lane2_1 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i) + 2i)];
        let A_shared_local_1_lane3_1 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 64i) + 3i)];
        A_shared_local_1[4i] = A_shared_local_1_lane0_1;
        A_shared_local_1[5i] = A_shared_local_1_lane1_1;
        A_shared_local_1[6i] = A_shared_local_1_lane2_1;
        A_shared_local_1[7i] = A_shared_local_1_lane3_1;
      }
      {
        let A_shared_local_1_lane0_2 : f32 = A_shared[(((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i)];
        let A_shared_local_1_lane1_2 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i) + 1i)];
        let A_shared_local_1_lane2_2 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i) + 2i)];
        let A_shared_local_1_lane3_2 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 128i) + 3i)];
        A_shared_local_1[8i] = A_shared_local_1_lane0_2;
        A_shared_local_1[9i] = A_shared_local_1_lane1_2;
        A_shared_local_1[10i] = A_shared_local_1_lane2_2;
        A_shared_local_1[11i] = A_shared_local_1_lane3_2;
      }
      {
        let A_shared_local_1_lane0_3 : f32 = A_shared[(((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i)];
        let A_shared_local_1_lane1_3 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i) + 1i)];
        let A_shared_local_1_lane2_3 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i) + 2i)];
        let A_shared_local_1_lane3_3 : f32 = A_shared[((((((k_0_2 * 2080i) + (k_1_1 * 260i)) + ((i32(threadIdx.x) / 64i) * 16i)) + (((i32(threadIdx.x) % 32i) / 8i) * 4i)) + 192i) + 3i)];
        A_shared_local_1[12i] = A_shared_local_1_lane0_3;
        A_shared_local_1[13i] = A_shared_local_1_lane1_3;
        A_shared_local_1[14i] = A_shared_local_1_lane2_3;
        A_shared_local_1[15i] = A_shared_local_1_lane3_3;
      }
      {
        let B_shared_local_1_lane0 : f32 = B_shared[((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i))];
        let B_shared_local_1_lane1 : f32 = B_shared[(((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 1i)];
        let B_shared_local_1_lane2 : f32 = B_shared[(((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 2i)];
        let B_shared_local_1_lane3 : f32 = B_shared[(((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 3i)];
        B_shared_local_1[0i] = B_shared_local_1_lane0;
        B_shared_local_1[1i] = B_shared_local_1_lane1;
        B_shared_local_1[2i] = B_shared_local_1_lane2;
        B_shared_local_1[3i] = B_shared_local_1_lane3;
      }
      {
        let B_shared_local_1_lane0_1 : f32 = B_shared[(((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i)];
        let B_shared_local_1_lane1_1 : f32 = B_shared[((((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 1i)];
        let B_shared_local_1_lane2_1 : f32 = B_shared[((((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 2i)];
        let B_shared_local_1_lane3_1 : f32 = B_shared[((((((k_0_2 * 1024i) + (k_1_1 * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 3i)];
        B_shared_local_1[4i] = B_shared_local_1_lane0_1;
        B_shared_local_1[5i] = B_shared_local_1_lane1_1;
        B_shared_local_1[6i] = B_shared_local_1_lane2_1;
        B_shared_local_1[7i] = B_shared_local_1_lane3_1;
      }
      for (var i_3_1 : i32 = 0i; i_3_1 < 4i; i_3_1++) {
        for (var j_3_1 : i32 = 0i; j_3_1 < 4i; j_3_1++) {
          matmul_local[((i_3_1 * 4i) + j_3_1)] = (matmul_local[((i_3_1 * 4i) + j_3_1)] + (A_shared_local_1[i_3_1] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 32i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 32i)] + (A_shared_local_1[(i_3_1 + 4i)] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 64i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 64i)] + (A_shared_local_1[(i_3_1 + 8i)] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 96i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 96i)] + (A_shared_local_1[(i_3_1 + 12i)] * B_shared_local_1[j_3_1]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 16i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 16i)] + (A_shared_local_1[i_3_1] * B_shared_local_1[(j_3_1 + 4i)]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 48i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 48i)] + (A_shared_local_1[(i_3_1 + 4i)] * B_shared_local_1[(j_3_1 + 4i)]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 80i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 80i)] + (A_shared_local_1[(i_3_1 + 8i)] * B_shared_local_1[(j_3_1 + 4i)]));
          matmul_local[(((i_3_1 * 4i) + j_3_1) + 112i)] = (matmul_local[(((i_3_1 * 4i) + j_3_1) + 112i)] + (A_shared_local_1[(i_3_1 + 12i)] * B_shared_local_1[(j_3_1 + 4i)]));
        }
      }
    }
  }
  for (var ax0 : i32 = 0i; ax0 < 4i; ax0++) {
    {
      let D_lane0 : f32 = (max(matmul_local[(ax0 * 4i)], 0.0f) + C[((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i))]);
      let D_lane1 : f32 = (max(matmul_local[((ax0 * 4i) + 1i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 1i)]);
      let D_lane2 : f32 = (max(matmul_local[((ax0 * 4i) + 2i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 2i)]);
      let D_lane3 : f32 = (max(matmul_local[((ax0 * 4i) + 3i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 3i)]);
      D[((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i))] = D_lane0;
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 1i)] = D_lane1;
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 2i)] = D_lane2;
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 3i)] = D_lane3;
    }
    {
      let D_lane0_1 : f32 = (max(matmul_local[((ax0 * 4i) + 32i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i)]);
      let D_lane1_1 : f32 = (max(matmul_local[(((ax0 * 4i) + 32i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i) + 1i)]);
      let D_lane2_1 : f32 = (max(matmul_local[(((ax0 * 4i) + 32i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i) + 2i)]);
      let D_lane3_1 : f32 = (max(matmul_local[(((ax0 * 4i) + 32i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i)] = D_lane0_1;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i) + 1i)] = D_lane1_1;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i) + 2i)] = D_lane2_1;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131072i) + 3i)] = D_lane3_1;
    }
    {
      let D_lane0_2 : f32 = (max(matmul_local[((ax0 * 4i) + 64i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i)]);
      let D_lane1_2 : f32 = (max(matmul_local[(((ax0 * 4i) + 64i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i) + 1i)]);
      let D_lane2_2 : f32 = (max(matmul_local[(((ax0 * 4i) + 64i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i) + 2i)]);
      let D_lane3_2 : f32 = (max(matmul_local[(((ax0 * 4i) + 64i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i)] = D_lane0_2;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i) + 1i)] = D_lane1_2;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i) + 2i)] = D_lane2_2;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262144i) + 3i)] = D_lane3_2;
    }
    {
      let D_lane0_3 : f32 = (max(matmul_local[((ax0 * 4i) + 96i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i)]);
      let D_lane1_3 : f32 = (max(matmul_local[(((ax0 * 4i) + 96i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i) + 1i)]);
      let D_lane2_3 : f32 = (max(matmul_local[(((ax0 * 4i) + 96i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i) + 2i)]);
      let D_lane3_3 : f32 = (max(matmul_local[(((ax0 * 4i) + 96i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i)] = D_lane0_3;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i) + 1i)] = D_lane1_3;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i) + 2i)] = D_lane2_3;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393216i) + 3i)] = D_lane3_3;
    }
    {
      let D_lane0_4 : f32 = (max(matmul_local[((ax0 * 4i) + 16i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i)]);
      let D_lane1_4 : f32 = (max(matmul_local[(((ax0 * 4i) + 16i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 1i)]);
      let D_lane2_4 : f32 = (max(matmul_local[(((ax0 * 4i) + 16i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 2i)]);
      let D_lane3_4 : f32 = (max(matmul_local[(((ax0 * 4i) + 16i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i)] = D_lane0_4;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 1i)] = D_lane1_4;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 2i)] = D_lane2_4;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 64i) + 3i)] = D_lane3_4;
    }
    {
      let D_lane0_5 : f32 = (max(matmul_local[((ax0 * 4i) + 48i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i)]);
      let D_lane1_5 : f32 = (max(matmul_local[(((ax0 * 4i) + 48i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i) + 1i)]);
      let D_lane2_5 : f32 = (max(matmul_local[(((ax0 * 4i) + 48i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i) + 2i)]);
      let D_lane3_5 : f32 = (max(matmul_local[(((ax0 * 4i) + 48i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i)] = D_lane0_5;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i) + 1i)] = D_lane1_5;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i) + 2i)] = D_lane2_5;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 131136i) + 3i)] = D_lane3_5;
    }
    {
      let D_lane0_6 : f32 = (max(matmul_local[((ax0 * 4i) + 80i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i)]);
      let D_lane1_6 : f32 = (max(matmul_local[(((ax0 * 4i) + 80i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i) + 1i)]);
      let D_lane2_6 : f32 = (max(matmul_local[(((ax0 * 4i) + 80i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i) + 2i)]);
      let D_lane3_6 : f32 = (max(matmul_local[(((ax0 * 4i) + 80i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i)] = D_lane0_6;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i) + 1i)] = D_lane1_6;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i) + 2i)] = D_lane2_6;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 262208i) + 3i)] = D_lane3_6;
    }
    {
      let D_lane0_7 : f32 = (max(matmul_local[((ax0 * 4i) + 112i)], 0.0f) + C[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i)]);
      let D_lane1_7 : f32 = (max(matmul_local[(((ax0 * 4i) + 112i) + 1i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i) + 1i)]);
      let D_lane2_7 : f32 = (max(matmul_local[(((ax0 * 4i) + 112i) + 2i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i) + 2i)]);
      let D_lane3_7 : f32 = (max(matmul_local[(((ax0 * 4i) + 112i) + 3i)], 0.0f) + C[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i) + 3i)]);
      D[(((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i)] = D_lane0_7;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i) + 1i)] = D_lane1_7;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i) + 2i)] = D_lane2_7;
      D[((((((((((i32(blockIdx.x) / 16i) * 524288i) + ((i32(threadIdx.x) / 64i) * 32768i)) + (((i32(threadIdx.x) % 32i) / 8i) * 8192i)) + (ax0 * 2048i)) + ((i32(blockIdx.x) % 16i) * 128i)) + (((i32(threadIdx.x) % 64i) / 32i) * 32i)) + ((i32(threadIdx.x) % 8i) * 4i)) + 393280i) + 3i)] = D_lane3_7;
    }
  }
}
