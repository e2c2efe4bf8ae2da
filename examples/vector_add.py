# from tvm.script import tir as T

@T.prim_func
def vector_add(A: T.Buffer((65536,), "float32"), B: T.Buffer((65536,), "float32"), C: T.Buffer((65536,), "float32")):
    T.func_attr({"global_symbol": "vector_add", "tir.noalias": T.bool(True)})
    # with T.block("root"):
    for i in range(65536):
        with T.block("C"):
            v_i = T.axis.spatial(65536, i)
            T.reads(A[v_i], B[v_i])
            T.writes(C[v_i])
            C[v_i] = A[v_i] + B[v_i]
