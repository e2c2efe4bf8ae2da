# Intrinsics as TVM's own scripts spell them: dtype= keywords, T.ceildiv, bit operators,
# tuple declarations of size variables, an empty storage scope and an implicit cast on store.
@T.prim_func
def soft_gate(a: T.handle, g: T.handle):
    rows, cols = T.int32(), T.int32()
    A = T.match_buffer(a, (rows, cols), "float16")
    G = T.match_buffer(g, (rows, T.ceildiv(cols, 8)), "float16")
    acc = T.sblock_alloc_buffer((rows,), "float32", scope="")
    for i, j in T.grid(rows, cols):
        with T.sblock("gate"):
            vi, vj = T.axis.remap("SS", [i, j])
            acc[vi] = T.if_then_else(vj < 4, T.sqrt(T.Cast("float32", A[vi, vj]), dtype="float32"), T.float32(0), dtype="float32")
            G[vi, vj // 8] = T.exp(A[vi, vj], dtype="float16")


@T.prim_func
def unpack_nibbles(packed: T.Buffer((16,), "int32"), out: T.Buffer((128,), "float32")):
    for i in range(128):
        with T.sblock("unpack"):
            vi = T.axis.remap("S", [i])
            T.reads(packed[vi // 8])
            T.writes(out[vi])
            out[vi] = (packed[vi // 8] >> vi % 8 * 4 & 15) - ((~packed[0] | 1) ^ (packed[1] << 2))


@T.prim_func
def hinted(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for i in range(32):
        with T.sblock("rsqrt"):
            vi = T.axis.remap("S", [i])
            T.evaluate(T.assume(vi < 32))
            if T.likely(vi % 2 == 0):
                B[vi] = T.rsqrt(A[vi])
            else:
                B[vi] = vi
