@T.prim_func
def loop_kinds(A: T.Buffer((4, 8, 16, 32), "float32"), B: T.Buffer((4, 8, 16, 32), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(0, 8, thread="threadIdx.x"):
            for i in T.parallel(16):
                for j0 in T.serial(2, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
                    for j1 in T.unroll(4):
                        for j2 in T.vectorized(4):
                            with T.block("B"):
                                v0 = T.axis.spatial(4, bx)
                                v1 = T.axis.spatial(8, tx)
                                v2 = T.axis.spatial(16, i)
                                v3 = T.axis.spatial(32, j0 * 16 + j1 * 4 + j2)
                                B[v0, v1, v2, v3] = A[v0, v1, v2, v3] * T.float32(2)
    for i in range(2, 4):
        for j in T.serial(0, 8):
            with T.block("shifted"):
                vi = T.axis.spatial((2, 4), i)
                vj = T.axis.S(8, j)
                B[vi, vj, 0, 0] = A[vi, vj, 0, 0]
