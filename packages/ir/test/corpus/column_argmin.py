# Column-wise argmin of a score matrix: a two-buffer reduction whose init uses T.max_value and
# whose update binds its candidates with T.let[...] annotations.
@T.prim_func
def column_argmin(score: T.Buffer((64, 32), "float32"), best_row: T.Buffer((32,), "int32"), best_val: T.Buffer((32,), "float32")):
    for c, r in T.grid(32, 64):
        with T.sblock("argmin"):
            vc, vr = T.axis.remap("SR", [c, r])
            T.reads(score[vr, vc])
            T.writes(best_row[vc], best_val[vc])
            with T.init():
                best_row[vc] = -1
                best_val[vc] = T.max_value("float32")
            keep: T.let[T.bool] = best_val[vc] <= score[vr, vc]
            row: T.let[T.int32] = T.Select(keep, best_row[vc], vr)
            val: T.let[T.float32] = T.Select(keep, best_val[vc], score[vr, vc])
            best_row[vc] = row
            best_val[vc] = val


@T.prim_func
def running_peak(x: T.Buffer((40,), "int8"), peak: T.Buffer((1,), "int8")):
    for t in range(40):
        with T.sblock("peak"):
            vt = T.axis.remap("R", [t])
            with T.init():
                peak[0] = T.min_value("int8")
            peak[0] = T.max(peak[0], x[vt])
