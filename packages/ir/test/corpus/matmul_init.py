@T.prim_func
def matmul(a: T.handle, b: T.handle, c: T.handle):
    A = T.match_buffer(a, (64, 32), "float16")
    B = T.match_buffer(b, [32, 48], dtype="float16")
    C = T.match_buffer(c, (64, 48), "float32")
    for i, j, k in T.grid(64, 48, 32):
        with T.block("matmul"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = 0.0
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.cast(B[vk, vj], "float32")
