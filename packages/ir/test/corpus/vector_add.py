@T.prim_func
def vector_add(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
    T.func_attr({"global_symbol": "vector_add", "tir.noalias": True})
    for i in range(1024):
        with T.block("C"):
            vi = T.axis.spatial(1024, i)
            C[vi] = A[vi] + B[vi]
