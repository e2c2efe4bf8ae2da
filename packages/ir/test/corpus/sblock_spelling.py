# TVM HEAD spellings (T.sblock, T.sblock_alloc_buffer, T.sblock_attr) and the rarer iterator kinds.
@T.prim_func
def cumsum(A: T.Buffer((4, 32), "float32"), B: T.Buffer((4, 32), "float32")):
    for b in range(4):
        with T.sblock("outer"):
            vb = T.axis.opaque(4, b)
            T.sblock_attr({"note": [1, 2.5, "x"], "nested": {"flag": False}})
            acc = T.sblock_alloc_buffer((1,), scope="local")
            for i in range(32):
                with T.sblock("scan"):
                    vi = T.axis.scan(32, i)
                    vk = T.axis.R(1, 0)
                    acc[vk] = acc[vk] + A[vb, vi]
                    B[vb, vi] = acc[vk]
