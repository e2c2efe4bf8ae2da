/**
 * Opaque intrinsics (tensor-core fragments, access pointers, extern calls) pass through loop
 * transformations untouched: only the block bindings around them change.
 */
import { assertStructuralEqual, parsePrimFunc } from "@tessera/ir";
import { describe, it } from "vitest";
import { Schedule } from "../src/index.js";

const FRAGMENTS = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
    F = T.sblock_alloc_buffer((128, 128), "float16", scope="wmma.matrix_a")
    for i, j in T.grid(8, 8):
        with T.sblock("load"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.writes(F[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.tvm_load_matrix_sync(F.data, 16, 16, 16, vi * 8 + vj, T.tvm_access_ptr(T.type_annotation("float16"), A.data, vi * 2048 + vj * 16, 2048, 1), 128, "row_major")
    for i, j in T.grid(128, 128):
        with T.sblock("use"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(F[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = T.Cast("float32", F[vi, vj])
            T.evaluate(T.call_extern("void", "trace_tile", C.data, vi))
`;

describe("opaque intrinsics under loop transformations", () => {
  it("split, fuse and reorder leave the calls as they were, in the new bindings", () => {
    const sch = new Schedule(parsePrimFunc(FRAGMENTS));
    const [i, j] = sch.getLoops(sch.getBlock("load"));
    const fused = sch.fuse(i!, j!);
    sch.split(fused, [16, 4]);
    const [u, v] = sch.getLoops(sch.getBlock("use"));
    sch.reorder(v!, u!);
    const expected = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
    F = T.sblock_alloc_buffer((128, 128), "float16", scope="wmma.matrix_a")
    for i_j_fused_0, i_j_fused_1 in T.grid(16, 4):
        with T.sblock("load"):
            vi = T.axis.spatial(8, (i_j_fused_0 * 4 + i_j_fused_1) // 8)
            vj = T.axis.spatial(8, (i_j_fused_0 * 4 + i_j_fused_1) % 8)
            T.reads(A[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.writes(F[vi * 16:vi * 16 + 16, vj * 16:vj * 16 + 16])
            T.tvm_load_matrix_sync(F.data, 16, 16, 16, vi * 8 + vj, T.tvm_access_ptr(T.type_annotation("float16"), A.data, vi * 2048 + vj * 16, 2048, 1), 128, "row_major")
    for j, i in T.grid(128, 128):
        with T.sblock("use"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(F[vi, vj])
            T.writes(C[vi, vj])
            C[vi, vj] = T.Cast("float32", F[vi, vj])
            T.call_extern("void", "trace_tile", C.data, vi)
`;
    assertStructuralEqual(sch.func, parsePrimFunc(expected));
  });
});
