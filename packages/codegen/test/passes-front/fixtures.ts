/** TVMScript inputs shared by several front-pass tests. */

/** G: global intermediate, S / S2: shared, L: local. */
export const MIXED_SCOPES = `
@T.prim_func
def main(A: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    G = T.alloc_buffer((64,))
    S = T.alloc_buffer((64,), scope="shared")
    S2 = T.alloc_buffer((64,), scope="shared")
    L = T.alloc_buffer((64,), scope="local")
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("G"):
                vi = T.axis.spatial(64, bx * 32 + tx)
                G[vi] = A[vi] * T.float32(2)
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("S"):
                vi = T.axis.spatial(64, bx * 32 + tx)
                S[vi] = G[vi]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            with T.block("S2"):
                vi = T.axis.spatial(64, bx * 32 + tx)
                S2[vi] = S[vi]
            for j in range(2):
                with T.block("L"):
                    vi = T.axis.spatial(64, bx * 32 + tx)
                    L[vi] = S2[vi] + T.float32(1)
                with T.block("C"):
                    vi = T.axis.spatial(64, bx * 32 + tx)
                    C[vi] = L[vi]
`;

/** A shared stage whose writer asks for `stride[0] % 32 == 8` (as `Schedule.storageAlign` writes it). */
export const ALIGNED_SHARED = `
@T.prim_func
def main(A: T.Buffer((64, 16), "float32"), B: T.Buffer((64, 16), "float32")):
    S = T.alloc_buffer((64, 16), scope="shared")
    for bx in T.thread_binding(2, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for j in range(16):
                with T.block("S"):
                    vi = T.axis.spatial(64, bx * 32 + tx)
                    vj = T.axis.spatial(16, j)
                    T.reads(A[vi, vj])
                    T.writes(S[vi, vj])
                    T.block_attr({"buffer_dim_align": [[0, 0, 32, 8]]})
                    S[vi, vj] = A[vi, vj]
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            for j in range(16):
                with T.block("B"):
                    vi = T.axis.spatial(64, bx * 32 + tx)
                    vj = T.axis.spatial(16, j)
                    T.reads(S[vi, 15 - vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = S[vi, 15 - vj]
`;
