@T.prim_func
def lowered_sum(A: T.Buffer((256,), "float32"), B: T.Buffer((1,), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    blockIdx_x = T.launch_thread("blockIdx.x", 1)
    red = T.allocate([256], "float32", "shared")
    red_1 = T.Buffer((256,), data=red, scope="shared")
    threadIdx_x = T.env_thread("threadIdx.x")
    T.launch_thread(threadIdx_x, 256)
    red_1[threadIdx_x] = A[threadIdx_x]
    T.tvm_storage_sync("shared")
    with T.attr(red, "storage_alignment", 16):
        if threadIdx_x == 0:
            acc: T.float32 = T.float32(0)
            B[0] = acc
            T.evaluate(0)
