/** TVMScript workloads shared by the compute-at tests. */

export const TWO_ELEMENTWISE_SPLIT = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i_0, i_1, j in T.grid(16, 8, 128):
        with T.block("C"):
            vi = T.axis.spatial(128, i_0 * 8 + i_1)
            vj = T.axis.spatial(128, j)
            C[vi, vj] = B[vi, vj] + T.float32(1)
`;

/** gemmReluAdd(64) after split i, j by 32 and k by 8, reorder, bind and cache_read of A and B. */
export function courseAfterCacheRead(scope: "shared" | "local" | "global", bind: boolean): string {
  const loop = (v: string, n: number, tag: string) => (bind ? `T.thread_binding(${n}, thread="${tag}")` : `range(${n})`);
  const buf = scope === "global" ? "" : `, scope="${scope}"`;
  return `
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    matmul = T.alloc_buffer((64, 64))
    relu = T.alloc_buffer((64, 64))
    A_shared = T.alloc_buffer((64, 64)${buf})
    B_shared = T.alloc_buffer((64, 64)${buf})
    for ax0, ax1 in T.grid(64, 64):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            A_shared[v0, v1] = A[v0, v1]
    for ax0, ax1 in T.grid(64, 64):
        with T.block("B_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B_shared[v0, v1] = B[v0, v1]
    for i_0 in ${loop("i_0", 2, "blockIdx.x")}:
        for j_0 in ${loop("j_0", 2, "blockIdx.y")}:
            for i_1 in ${loop("i_1", 32, "threadIdx.x")}:
                for j_1 in ${loop("j_1", 32, "threadIdx.y")}:
                    for k_0, k_1 in T.grid(8, 8):
                        with T.block("gemm"):
                            vi = T.axis.spatial(64, i_0 * 32 + i_1)
                            vj = T.axis.spatial(64, j_0 * 32 + j_1)
                            vk = T.axis.reduce(64, k_0 * 8 + k_1)
                            with T.init():
                                matmul[vi, vj] = T.float32(0)
                            matmul[vi, vj] = matmul[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
    for i, j in T.grid(64, 64):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0))
    for i, j in T.grid(64, 64):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = relu[vi, vj] + C[vi, vj]
`;
}

/** The GEMM nest of the course after compute_at of both caches under k_0 (shared / unbound). */
export const COURSE_AFTER_COMPUTE_AT_GEMM = (bind: boolean, head: string) => {
  const loop = (n: number, tag: string) => (bind ? `T.thread_binding(${n}, thread="${tag}")` : `range(${n})`);
  return `
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    matmul = T.alloc_buffer((64, 64))
    relu = T.alloc_buffer((64, 64))
    A_shared = T.alloc_buffer((64, 64)${head})
    B_shared = T.alloc_buffer((64, 64)${head})
    for i_0 in ${loop(2, "blockIdx.x")}:
        for j_0 in ${loop(2, "blockIdx.y")}:
            for i_1 in ${loop(32, "threadIdx.x")}:
                for j_1 in ${loop(32, "threadIdx.y")}:
                    for k_0 in range(8):
                        for ax0, ax1 in T.grid(32, 8):
                            with T.block("A_shared"):
                                v0 = T.axis.spatial(64, i_0 * 32 + ax0)
                                v1 = T.axis.spatial(64, k_0 * 8 + ax1)
                                A_shared[v0, v1] = A[v0, v1]
                        for ax0, ax1 in T.grid(8, 32):
                            with T.block("B_shared"):
                                v0 = T.axis.spatial(64, k_0 * 8 + ax0)
                                v1 = T.axis.spatial(64, j_0 * 32 + ax1)
                                B_shared[v0, v1] = B[v0, v1]
                        for k_1 in range(8):
                            with T.block("gemm"):
                                vi = T.axis.spatial(64, i_0 * 32 + i_1)
                                vj = T.axis.spatial(64, j_0 * 32 + j_1)
                                vk = T.axis.reduce(64, k_0 * 8 + k_1)
                                with T.init():
                                    matmul[vi, vj] = T.float32(0)
                                matmul[vi, vj] = matmul[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]
    for i, j in T.grid(64, 64):
        with T.block("relu"):
            vi, vj = T.axis.remap("SS", [i, j])
            relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0))
    for i, j in T.grid(64, 64):
        with T.block("add"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = relu[vi, vj] + C[vi, vj]
`;
};

const COURSE_HEAD = `
@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), D: T.Buffer((64, 64), "float32")):
    A_shared = T.alloc_buffer((64, 64), scope="shared")
    B_shared = T.alloc_buffer((64, 64), scope="shared")`;

const GEMM_BODY = (indent: string) =>
  [
    `with T.block("gemm"):`,
    `    vi = T.axis.spatial(64, i_0 * 32 + i_1)`,
    `    vj = T.axis.spatial(64, j_0 * 32 + j_1)`,
    `    vk = T.axis.reduce(64, k_0 * 8 + k_1)`,
    `    with T.init():`,
    `        D[vi, vj] = T.float32(0)`,
    `    D[vi, vj] = D[vi, vj] + A_shared[vi, vk] * B_shared[vk, vj]`,
  ]
    .map((l) => indent + l)
    .join("\n");

/** The course order i_0, j_0, k_0, i_1, j_1, k_1 with no thread binding (caches at the root). */
export const COURSE_UNBOUND = `${COURSE_HEAD}
    for ax0, ax1 in T.grid(64, 64):
        with T.block("A_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            A_shared[v0, v1] = A[v0, v1]
    for ax0, ax1 in T.grid(64, 64):
        with T.block("B_shared"):
            v0, v1 = T.axis.remap("SS", [ax0, ax1])
            B_shared[v0, v1] = B[v0, v1]
    for i_0, j_0, k_0, i_1, j_1, k_1 in T.grid(2, 2, 8, 32, 32, 8):
${GEMM_BODY("        ")}
`;

export const COURSE_UNBOUND_AFTER = `${COURSE_HEAD}
    for i_0, j_0, k_0 in T.grid(2, 2, 8):
        for ax0, ax1 in T.grid(32, 8):
            with T.block("A_shared"):
                v0 = T.axis.spatial(64, i_0 * 32 + ax0)
                v1 = T.axis.spatial(64, k_0 * 8 + ax1)
                A_shared[v0, v1] = A[v0, v1]
        for ax0, ax1 in T.grid(8, 32):
            with T.block("B_shared"):
                v0 = T.axis.spatial(64, k_0 * 8 + ax0)
                v1 = T.axis.spatial(64, j_0 * 32 + ax1)
                B_shared[v0, v1] = B[v0, v1]
        for i_1, j_1, k_1 in T.grid(32, 32, 8):
${GEMM_BODY("            ")}
`;
