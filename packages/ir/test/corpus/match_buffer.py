@T.prim_func
def tile_copy(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (64, 64), offset_factor=1)
    B = T.match_buffer(b, (64, 64), align=128)
    for i, j in T.grid(4, 4):
        with T.block("tile"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.writes(B[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            A_sub = T.match_buffer(A[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16], (16, 16), offset_factor=1)
            B_sub = T.match_buffer(B[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16], (16, 16))
            for x, y in T.grid(16, 16):
                B_sub[x, y] = A_sub[x, y]
