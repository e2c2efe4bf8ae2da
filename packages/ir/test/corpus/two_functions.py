# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("scale"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] * T.float32(3)

    @T.prim_func
    def main(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main"})
        for i in range(8):
            with T.block("copy"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi]
