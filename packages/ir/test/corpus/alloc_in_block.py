@T.prim_func
def alloc_in_block(A: T.Buffer((16, 16), "float32"), C: T.Buffer((16, 16), "float32")):
    for i in range(16):
        with T.block("outer"):
            vi = T.axis.spatial(16, i)
            T.reads(A[vi, 0:16])
            T.writes(C[vi, 0:16])
            T.block_attr({"meta_schedule.tiling_structure": "SSRSRS"})
            row = T.alloc_buffer((16,), scope="local")
            for j in range(16):
                with T.block("load"):
                    vj = T.axis.spatial(16, j)
                    row[vj] = A[vi, vj]
            for j in range(16):
                with T.block("store"):
                    vj = T.axis.spatial(16, j)
                    C[vi, vj] = row[vj] * T.float32(2)
