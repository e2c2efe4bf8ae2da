import { assertStructuralEqual, gemmReluAdd, parsePrimFunc } from "@tessera/ir";
import { expectScheduleError } from "./support.js";
import { describe, expect, it } from "vitest";
import {
  BufferIndexOutOfRangeError,
  InvalidStorageScopeError,
  NonAllocatedBufferError,
  StorageAlignAxisOutOfRangeError,
  StorageAlignInvalidFactorError,
} from "../src/error-catalogue.js";
import { Schedule } from "../src/index.js";

const ELEMENTWISE = `
@T.prim_func
def main(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    B = T.alloc_buffer((128, 128))
    for i, j in T.grid(128, 128):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] * T.float32(2)
    for i, j in T.grid(128, 128):
        with T.block("C"):
            vi, vj = T.axis.remap("SS", [i, j])
            C[vi, vj] = B[vi, vj] + T.float32(1)
`;

describe("setScope", () => {
  it("moves an intermediate buffer to another scope everywhere it is used", () => {
    const sch = new Schedule(parsePrimFunc(ELEMENTWISE));
    const b = sch.getBlock("B");
    sch.setScope(b, 0, "shared");
    const expected = parsePrimFunc(ELEMENTWISE.replace("B = T.alloc_buffer((128, 128))", 'B = T.alloc_buffer((128, 128), scope="shared")'));
    assertStructuralEqual(sch.func, expected, { compareNames: true });
    expect(sch.get(b).writes[0]!.buffer.scope).toBe("shared");
    expect(sch.getConsumers(b).map((x) => sch.get(x).name)).toEqual(["C"]);
  });

  it("sets the matmul of gemmReluAdd to local (the naive schedule)", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    sch.setScope(sch.getBlock("gemm"), 0, "local");
    expect(sch.script()).toContain('matmul = T.alloc_buffer((16, 16), scope="local")');
    expect(sch.get(sch.getBlock("relu")).reads[0]!.buffer.scope).toBe("local");
  });

  it("is a no-op when the scope is already the requested one", () => {
    const sch = new Schedule(parsePrimFunc(ELEMENTWISE));
    const before = sch.func;
    sch.setScope(sch.getBlock("B"), 0, "global");
    expect(sch.func).toBe(before);
  });

  it("rejects parameters, bad scopes and bad indices", () => {
    const sch = new Schedule(parsePrimFunc(ELEMENTWISE));
    const b = sch.getBlock("B");
    const c = sch.getBlock("C");
    expectScheduleError(sch, () => sch.setScope(c, 0, "shared"), NonAllocatedBufferError, "The input buffer C is not allocated by a block");
    expectScheduleError(sch, () => sch.setScope(b, 0, "constant" as never), InvalidStorageScopeError, /"constant" is invalid/);
    expectScheduleError(sch, () => sch.setScope(b, 1, "shared"), BufferIndexOutOfRangeError, /range \[0, 1\) but got 1/);
  });
});

describe("storageAlign", () => {
  it("records the alignment in the buffer_dim_align annotation, normalising the axis", () => {
    const sch = new Schedule(parsePrimFunc(ELEMENTWISE));
    const b = sch.getBlock("B");
    sch.storageAlign(b, 0, -2, 128, 127);
    const annotated = ELEMENTWISE.replace(
      "            B[vi, vj] = A[vi, vj] * T.float32(2)",
      '            T.block_attr({"buffer_dim_align": [[0, 0, 128, 127]]})\n            B[vi, vj] = A[vi, vj] * T.float32(2)',
    );
    assertStructuralEqual(sch.func, parsePrimFunc(annotated), { compareNames: true });
    expect(sch.script()).toContain('T.block_attr({"buffer_dim_align": [[0, 0, 128, 127]]})');
    // The same (buffer, axis) is updated in place; another axis is appended.
    sch.storageAlign(b, 0, 0, 32, 8);
    sch.storageAlign(b, 0, 1, 16, 1);
    expect(sch.get(b).annotations["buffer_dim_align"]).toEqual([
      [0, 0, 32, 8],
      [0, 1, 16, 1],
    ]);
  });

  it("rejects a non-positive factor, an axis out of range and a parameter buffer", () => {
    const sch = new Schedule(parsePrimFunc(ELEMENTWISE));
    const b = sch.getBlock("B");
    const c = sch.getBlock("C");
    expectScheduleError(
      sch,
      () => sch.storageAlign(b, 0, 0, 0, 1),
      StorageAlignInvalidFactorError,
      /expected to be a positive number. However, the input `factor` is 0/,
    );
    expectScheduleError(
      sch,
      () => sch.storageAlign(b, 0, 2, 32, 1),
      StorageAlignAxisOutOfRangeError,
      /has 2 dimension\(s\), so `axis` is required to be in \[-2, 2\)/,
    );
    expectScheduleError(sch, () => sch.storageAlign(c, 0, 0, 32, 1), NonAllocatedBufferError, /C is not allocated by a block/);
  });
});
