/** Small workloads (our own) used by the conformance cases, as TVMScript text. */

/** Two elementwise stages, int32 16x12: Y = X * 3; Z = Y - 5. */
export const EW_HEAD = `@T.prim_func
def main(X: T.Buffer((16, 12), "int32"), Z: T.Buffer((16, 12), "int32")):
`;

export const EW_Y = `            Y[vp, vq] = X[vp, vq] * 3`;
export const EW_Z = `            Z[vp, vq] = Y[vp, vq] - 5`;

export const EW = `${EW_HEAD}    Y = T.alloc_buffer((16, 12), "int32")
    for p, q in T.grid(16, 12):
        with T.block("Y"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Y}
    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Z}
`;

/** A Z nest that is unchanged by a schedule of Y. */
export const EW_Z_NEST = `    for p, q in T.grid(16, 12):
        with T.block("Z"):
            vp, vq = T.axis.remap("SS", [p, q])
${EW_Z}
`;

/** int32 matmul 16x16x16: C = A @ B. */
export const MM_HEAD = `@T.prim_func
def main(A: T.Buffer((16, 16), "int32"), B: T.Buffer((16, 16), "int32"), C: T.Buffer((16, 16), "int32")):
`;
export const MM_INIT = `                C[vi, vj] = 0`;
export const MM_UPD = `            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]`;
export const MM = `${MM_HEAD}    for i, j, k in T.grid(16, 16, 16):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
${MM_INIT}
${MM_UPD}
`;

/** Matmul whose rows are already split and bound: i_0 → blockIdx.x, i_1 → threadIdx.x. */
export const MM_BOUND = `${MM_HEAD}    for i_0 in T.thread_binding(4, thread="blockIdx.x"):
        for i_1 in T.thread_binding(4, thread="threadIdx.x"):
            for j, k in T.grid(16, 16):
                with T.block("C"):
                    vi = T.axis.spatial(16, i_0 * 4 + i_1)
                    vj, vk = T.axis.remap("SR", [j, k])
                    with T.init():
                        C[vi, vj] = 0
                    C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
`;

/** Row sum, int32: S[i] = sum_k R[i, k], 8x16, k already split 4x4. */
export const RSUM_HEAD = `@T.prim_func
def main(R: T.Buffer((8, 16), "int32"), S: T.Buffer((8,), "int32")):
`;
export const RSUM_SPLIT = `${RSUM_HEAD}    for i, k_0, k_1 in T.grid(8, 4, 4):
        with T.block("S"):
            vi = T.axis.spatial(8, i)
            vk = T.axis.reduce(16, k_0 * 4 + k_1)
            with T.init():
                S[vi] = 0
            S[vi] = S[vi] + R[vi, vk]
`;

/** Three elementwise stages, int32 8x8: P = U + 1; Q = P * P; W = Q - U. */
export const CHAIN_HEAD = `@T.prim_func
def main(U: T.Buffer((8, 8), "int32"), W: T.Buffer((8, 8), "int32")):
`;
export const CHAIN = `${CHAIN_HEAD}    P = T.alloc_buffer((8, 8), "int32")
    Q = T.alloc_buffer((8, 8), "int32")
    for a, b in T.grid(8, 8):
        with T.block("P"):
            va, vb = T.axis.remap("SS", [a, b])
            P[va, vb] = U[va, vb] + 1
    for a, b in T.grid(8, 8):
        with T.block("Q"):
            va, vb = T.axis.remap("SS", [a, b])
            Q[va, vb] = P[va, vb] * P[va, vb]
    for a, b in T.grid(8, 8):
        with T.block("W"):
            va, vb = T.axis.remap("SS", [a, b])
            W[va, vb] = Q[va, vb] - U[va, vb]
`;

/** int32 matmul 8x8x8 followed by a clamp-at-zero epilogue (a reduction producer). */
export const MMR = `@T.prim_func
def main(A: T.Buffer((8, 8), "int32"), B: T.Buffer((8, 8), "int32"), D: T.Buffer((8, 8), "int32")):
    G = T.alloc_buffer((8, 8), "int32")
    for i, j, k in T.grid(8, 8, 8):
        with T.block("G"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                G[vi, vj] = 0
            G[vi, vj] = G[vi, vj] + A[vi, vk] * B[vk, vj]
    for i, j in T.grid(8, 8):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = T.max(G[vi, vj], 0)
`;
