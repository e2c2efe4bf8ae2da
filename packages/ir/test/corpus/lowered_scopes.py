# Lowered code whose scoped statements are followed by siblings, so they print as `with` blocks.
@T.prim_func
def lowered_scopes(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    x = T.int32()
    with T.launch_thread("threadIdx.x", 64) as tx:
        with T.LetStmt(tx * 2) as k:
            with T.allocate([64], "float32", "local") as p:
                P = T.Buffer((64,), data=p, scope="local")
                P[tx] = A[tx] + T.Cast("float32", T.Let(x + k, where={x: 1}))
                B[tx] = P[tx]
            B[tx] = B[tx] * T.float32(2)
        with T.decl_buffer((8,), "int32", scope="shared") as S:
            S[tx % 8] = tx
        T.tvm_storage_sync("shared")
