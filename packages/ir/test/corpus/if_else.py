@T.prim_func
def clamp_rows(A: T.Buffer((32, 32), "int32"), B: T.Buffer((32, 32), "int32")):
    for i, j in T.grid(32, 32):
        with T.block("clamp"):
            vi, vj = T.axis.remap("SS", [i, j])
            if vi < 8:
                B[vi, vj] = 0
            elif vi < 16 and vj >= 4:
                B[vi, vj] = A[vi, vj] * 2
            else:
                if not vj == 3:
                    B[vi, vj] = A[vi, vj] // 2 % 7
                else:
                    B[vi, vj] = -A[vi, vj]
