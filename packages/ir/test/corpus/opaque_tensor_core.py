# Tensor-core fragment code that schedules carry through untouched: wmma scopes, fragment
# intrinsics on buffer pointers, access_ptr and an external call made for its effect.
@T.prim_func
def fragment_tile(a: T.handle, c: T.handle):
    s0 = T.int32()
    A = T.match_buffer(a, (16, 16), "float16", strides=(s0, 1), offset_factor=16)
    C = T.match_buffer(c, (16, 16), "float32", offset_factor=16)
    A_frag = T.sblock_alloc_buffer((16, 16), "float16", scope="wmma.matrix_a")
    B_frag = T.sblock_alloc_buffer((16, 16), "float16", scope="wmma.matrix_b")
    C_frag = T.sblock_alloc_buffer((16, 16), "float32", scope="wmma.accumulator")
    with T.sblock("fill"):
        T.reads()
        T.writes(C_frag[0:16, 0:16])
        T.tvm_fill_fragment(C_frag.data, 16, 16, 16, 0, T.float32(0), dtype="handle")
    with T.sblock("load"):
        T.reads(A[0:16, 0:16])
        T.writes(A_frag[0:16, 0:16])
        T.tvm_load_matrix_sync(A_frag.data, 16, 16, 16, A_frag.elem_offset // 256, T.tvm_access_ptr(T.type_annotation(dtype="float16"), A.data, A.elem_offset, A.strides[0] * 16, 1, dtype="handle"), A.strides[0], "row_major")
    with T.sblock("mma"):
        T.reads(A_frag[0:16, 0:16], B_frag[0:16, 0:16], C_frag[0:16, 0:16])
        T.writes(C_frag[0:16, 0:16])
        T.tvm_mma_sync(C_frag.data, 0, A_frag.data, 0, B_frag.data, 0, C_frag.data, 0)
    with T.sblock("store"):
        T.reads(C_frag[0:16, 0:16])
        T.writes(C[0:16, 0:16])
        T.tvm_store_matrix_sync(C_frag.data, 16, 16, 16, 0, C.access_ptr("w", offset=C.elem_offset), 16, "row_major")
    with T.sblock("notify"):
        T.reads(C[0:16, 0:16])
        T.writes()
        T.evaluate(T.call_extern("tile_done", C.data, 16, dtype=""))
        T.evaluate(T.call_pure_extern("float32", "scale_of", C.data))
