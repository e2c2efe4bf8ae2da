import { assertStructuralEqual } from "@tessera/ir";
import { describe, it } from "vitest";
import { Schedule } from "../src/index.js";
import { parse } from "./loops-fixtures.js";

const SYMBOLIC = `
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (128, 128, n))
    B = T.match_buffer(b, (128, 128, n))
    for i, j, k in T.grid(128, 128, n):
        with T.block("B"):
            vi, vj, vk = T.axis.remap("SSS", [i, j, k])
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;

describe("split / fuse of symbolic loops (TVM test_split_symbolic, test_fuse_symbolic)", () => {
  it("splits with an inferred symbolic factor and a guard", () => {
    const sch = new Schedule(parse(SYMBOLIC));
    const [, , k] = sch.getLoops(sch.getBlock("B"));
    sch.split(k!, [10, null]);
    const expected = `
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (128, 128, n))
    B = T.match_buffer(b, (128, 128, n))
    for i, j, k_0, k_1 in T.grid(128, 128, 10, (n + 9) // 10):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            vk = T.axis.spatial(n, k_0 * ((n + 9) // 10) + k_1)
            T.where(k_0 * ((n + 9) // 10) + k_1 < n)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), { compareNames: true });
  });

  it("fuses symbolic loops", () => {
    const sch = new Schedule(parse(SYMBOLIC));
    const [i, j, k] = sch.getLoops(sch.getBlock("B"));
    sch.fuse(i!, j!, k!);
    const expected = `
@T.prim_func
def main(a: T.handle, b: T.handle, n: T.int32):
    A = T.match_buffer(a, (128, 128, n))
    B = T.match_buffer(b, (128, 128, n))
    for i_j_k_fused in range(n * 16384):
        with T.block("B"):
            vi = T.axis.spatial(128, i_j_k_fused // (n * 128))
            vj = T.axis.spatial(128, i_j_k_fused % (n * 128) // n)
            vk = T.axis.spatial(n, i_j_k_fused % n)
            B[vi, vj, vk] = A[vi, vj, vk] * T.float32(2.0)
`;
    assertStructuralEqual(sch.func, parse(expected), { compareNames: true });
  });
});
