/**
 * TVM's scalable vectors (Arm SVE, RISC-V V): dtypes such as `float32xvscalex4`, and Ramp /
 * Broadcast lanes written `T.vscale() * 4`, stored as lanes -4.
 */
import { describe, expect, it } from "vitest";
import { Analyzer } from "../../src/arith/index.js";
import { dtype, dtypeInfo, isScalableVector, isValidDType, makeDType } from "../../src/dtype.js";
import { compilePrimFunc } from "../../src/exec/index.js";
import { broadcast, intImm, ramp, variable } from "../../src/expr.js";
import { parsePrimFunc } from "../../src/parser/index.js";
import { structuralEqual } from "../../src/structural/index.js";
import { errorOf, roundTrip } from "./helpers.js";

function fn(...body: string[]): string {
  return ["@T.prim_func", 'def f(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32"), n: T.int32):', ...body.map((l) => `    ${l}`)].join("\n");
}

describe("scalable dtypes", () => {
  it("parse to negative lanes and print back in TVM's spelling", () => {
    expect(dtypeInfo("float32xvscalex4")).toEqual({ code: "float", bits: 32, lanes: -4 });
    expect(dtypeInfo("uint1xvscalex4")).toEqual({ code: "uint", bits: 1, lanes: -4 });
    expect(makeDType("int", 32, -8)).toBe("int32xvscalex8");
    expect(dtype("bool1xvscalex2")).toBe("boolxvscalex2");
    expect(isScalableVector("float16xvscalex8")).toBe(true);
    expect(isScalableVector("float16x8")).toBe(false);
  });

  it("refuses scalable vectors of vectors, of handles, and TVM's invalid orders", () => {
    for (const bad of ["float32x4xvscalex4", "float32x4xvscale", "handlexvscalex4", "float32xvscalex0", "float32xvscale"]) {
      expect(isValidDType(bad), bad).toBe(false);
    }
  });
});

describe("scalable Ramp and Broadcast", () => {
  it("round-trip through both dialects, with the lanes written T.vscale() * k", () => {
    const { f, printed } = roundTrip(fn("A[T.Ramp(11, 2, 4 * T.vscale())] = T.Broadcast(T.float32(125), T.vscale() * 4)"));
    expect(printed).toContain("A[T.Ramp(11, 2, T.vscale() * 4)] = T.Broadcast(T.float32(125.0), T.vscale() * 4)");
    expect(f.body.kind === "BufferStore" && f.body.value.dtype).toBe("float32xvscalex4");
  });

  it("slices of length T.vscale() * k are scalable ramps, printed as slices as TVM does", () => {
    const { printed } = roundTrip(fn('B[0 : T.vscale() * 4] = A.vload([T.Ramp(0, 1, T.vscale() * 4)], dtype="float32xvscalex4")'));
    expect(printed).toContain("B[0:T.vscale() * 4] = A[0:T.vscale() * 4]");
    roundTrip(
      fn(
        "for j in T.vectorized(T.vscale() * 4):",
        "    A[j * T.vscale() * 4 : j * T.vscale() * 4 + T.vscale() * 4] = T.Broadcast(T.float32(1), T.vscale() * 4)",
      ),
    );
    expect(
      structuralEqual(
        parsePrimFunc(fn('B[n : n + T.vscale() * 4] = A.vload([n], dtype="float32xvscalex4")')),
        parsePrimFunc(fn("B[n : n + T.vscale() * 4] = A[n : n + T.vscale() * 4]")),
      ),
    ).toBe(true);
  });

  it("structural equality tells scalable lanes from fixed ones and vscale × 4 from vscale × 8", () => {
    const a = parsePrimFunc(fn("A[T.Ramp(0, 1, T.vscale() * 4)] = T.Broadcast(T.float32(1), T.vscale() * 4)"));
    const fixed = parsePrimFunc(fn("A[T.Ramp(0, 1, 4)] = T.Broadcast(T.float32(1), 4)"));
    const eight = parsePrimFunc(fn("A[T.Ramp(0, 1, T.vscale() * 8)] = T.Broadcast(T.float32(1), T.vscale() * 8)"));
    expect(structuralEqual(a, fixed)).toBe(false);
    expect(structuralEqual(a, eight)).toBe(false);
  });

  it("scalable lets and intrinsic results keep their dtype", () => {
    const { printed } = roundTrip(
      fn(
        'mask: T.uint1xvscalex4 = T.get_active_lane_mask("uint1xvscalex4", 0, n)',
        "A.vstore([T.Ramp(0, 1, T.vscale() * 4)], T.Broadcast(T.float32(0), T.vscale() * 4), predicate=mask)",
      ),
    );
    expect(printed).toContain("T.uint1xvscalex4");
  });

  it("mixing scalable and fixed lanes, or a slice with a step, is an error naming the place", () => {
    expect(errorOf(fn("A[T.Ramp(0, 1, T.vscale() * 4)] = T.Broadcast(T.float32(1), 4)")).reason).toMatch(/float32x4 but the buffer holds float32|lanes/);
    expect(errorOf(fn("A[0 : T.vscale() * 4 : 2] = T.Broadcast(T.float32(1), T.vscale() * 2)"))).toMatchObject({
      reason: "a scalable vector index takes no step",
      line: 3,
    });
    expect(errorOf(fn("A[T.Ramp(0, 1, T.vscale() + 4)] = T.float32(1)")).reason).toBe("the lanes of T.Ramp must be an integer constant or T.vscale() * k");
  });

  it("the CPU executor refuses them by name", () => {
    const f = parsePrimFunc(fn("A[T.Ramp(0, 1, T.vscale() * 4)] = T.Broadcast(T.float32(1), T.vscale() * 4)"));
    expect(() => compilePrimFunc(f)).toThrow(/scalable vector \(vscale × lanes\), which the CPU executor does not have/);
  });

  it("bounds of a scalable ramp are TVM's: base and base + (vscale·k - 1)·stride, vscale unknown", () => {
    const x = variable("x", "int32");
    const an = new Analyzer();
    const zeroStride = an.constIntBound(ramp(intImm(3), intImm(0), -4));
    expect(zeroStride).toEqual({ min: 3, max: 3 });
    const growing = an.constIntBound(ramp(x, intImm(1), -4));
    expect(growing.max).toBeGreaterThanOrEqual(2 ** 31 - 1);
    expect(an.constIntBound(broadcast(intImm(7), -2))).toEqual({ min: 7, max: 7 });
  });
});
