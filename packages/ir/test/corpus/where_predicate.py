@T.prim_func
def split_with_tail(A: T.Buffer((100,), "float32"), B: T.Buffer((100,), "float32")):
    for i_0, i_1 in T.grid(13, 8):
        with T.block("B"):
            vi = T.axis.spatial(100, i_0 * 8 + i_1)
            T.where(i_0 * 8 + i_1 < 100)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = A[vi] + T.float32(1)
