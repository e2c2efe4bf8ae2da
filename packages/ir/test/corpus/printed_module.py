# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32"), D: T.Buffer((128, 128), "float32")):
        T.func_attr({"global_symbol": "gemm_relu_add", "tir.noalias": T.bool(True)})
        # with T.block("root"):
        matmul = T.alloc_buffer((128, 128))
        relu = T.alloc_buffer((128, 128))
        for i, j, k in T.grid(128, 128, 128):
            with T.block("gemm"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(matmul[vi, vj])
                with T.init():
                    matmul[vi, vj] = T.float32(0.0)
                matmul[vi, vj] = matmul[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(128, 128):
            with T.block("relu"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(matmul[vi, vj])
                T.writes(relu[vi, vj])
                relu[vi, vj] = T.max(matmul[vi, vj], T.float32(0.0))
        for i, j in T.grid(128, 128):
            with T.block("add"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(relu[vi, vj], C[vi, vj])
                T.writes(D[vi, vj])
                D[vi, vj] = relu[vi, vj] + C[vi, vj]
