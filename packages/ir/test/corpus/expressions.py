@T.prim_func
def expressions(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), I: T.Buffer((64,), "int32"), H: T.Buffer((64,), "float16")):
    for i in range(64):
        with T.block("exprs"):
            vi = T.axis.spatial(64, i)
            B[vi] = T.exp(A[vi]) + T.log(A[vi]) - T.sqrt(A[vi]) * T.tanh(A[vi]) / T.sigmoid(A[vi])
            B[vi] = T.fabs(A[vi]) + T.pow(A[vi], 2.0) + T.floor(A[vi]) + T.ceil(A[vi]) + T.round(A[vi])
            B[vi] = T.Select(A[vi] > 0.0, A[vi], T.float32(0)) + T.if_then_else(vi < 32, A[vi], 1.5)
            B[vi] = T.max(A[vi], 0.0) + T.min(A[vi], T.float32(6))
            I[vi] = T.floordiv(vi, 3) + T.floormod(vi, 3) + T.truncdiv(vi, 3) + T.truncmod(vi, 3) + T.Div(vi, 5) + T.Mod(vi, 5)
            I[vi] = (vi + 1) * (vi - 1) // 4 % 5 + T.Cast("int32", A[vi])
            H[vi] = 0.5
            H[vi] = H[vi] * T.float16(2) + T.Cast("float16", A[vi])
            B[vi] = T.if_then_else(vi >= 1 and vi <= 62 or vi != 0, T.float32("inf"), -1.5)
            I[vi] = T.Cast("int32", T.Select(T.bool(True), T.int64(5), T.Cast("int64", vi)))
