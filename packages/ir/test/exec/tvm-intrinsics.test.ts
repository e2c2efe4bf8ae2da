/**
 * The CPU executor on the intrinsics that TVM's schedule tests write: dtype limits, dtype=
 * keywords, bit operations (against a BigInt reference), hints, and the clear refusal of opaque
 * intrinsics.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { bitwiseAnd, bitwiseNot, bitwiseOr, bitwiseXor, shiftLeft, shiftRight } from "../../src/intrinsics.js";
import { ExecutionError, runPrimFunc } from "../../src/exec/index.js";
import { parsePrimFunc } from "../../src/parser/index.js";
import { readCorpus } from "../parser/helpers.js";
import { evalExpr } from "./helpers.js";

function corpusFunction(file: string, name: string): ir.PrimFunc {
  const f = ir.parseTVMScript(readCorpus(file)).functions.get(name);
  if (f === undefined) throw new Error(`${file} has no function ${name}`);
  return f;
}

describe("reducers initialised with T.min_value / T.max_value", () => {
  it("column_argmin finds the first row of each column's minimum", () => {
    const f = corpusFunction("column_argmin.py", "column_argmin");
    const score = new Float32Array(64 * 32).map((_, k) => Math.fround(Math.sin(k * 1.7) * 50));
    score[5 * 32 + 3] = -1000; // column 3: row 5 is the minimum
    const bestRow = new Int32Array(32);
    const bestVal = new Float32Array(32);
    runPrimFunc(f, [score, bestRow, bestVal]);
    for (let c = 0; c < 32; c++) {
      let row = -1;
      let val = 3.4028234663852886e38;
      for (let r = 0; r < 64; r++) {
        const s = score[r * 32 + c]!;
        if (!(val <= s)) [row, val] = [r, s];
      }
      expect([bestRow[c], bestVal[c]]).toEqual([row, val]);
    }
    expect(bestRow[3]).toBe(5);
  });

  it("running_peak starts from the smallest int8", () => {
    const f = corpusFunction("column_argmin.py", "running_peak");
    const peak = new Int8Array(1);
    runPrimFunc(f, [new Int8Array(40).fill(-128), peak]);
    expect(peak[0]).toBe(-128);
    const x = new Int8Array(40).map((_, k) => ((k * 37) % 100) - 90);
    runPrimFunc(f, [x, peak]);
    expect(peak[0]).toBe(Math.max(...x));
  });

  it("T.min_value / T.max_value are the dtype's limits", () => {
    const limits = parsePrimFunc(`
@T.prim_func
def limits(out_f: T.Buffer((2,), "float32"), out_i: T.Buffer((2,), "int16"), out_u: T.Buffer((1,), "uint8")):
    out_f[0] = T.min_value("float32")
    out_f[1] = T.max_value(dtype="float32")
    out_i[0] = T.min_value("int16")
    out_i[1] = T.max_value("int16")
    out_u[0] = T.max_value("uint8")
`);
    const f = new Float32Array(2);
    const i = new Int16Array(2);
    const u = new Uint8Array(1);
    runPrimFunc(limits, [f, i, u]);
    expect([...f]).toEqual([-3.4028234663852886e38, 3.4028234663852886e38]);
    expect([...i]).toEqual([-32768, 32767]);
    expect(u[0]).toBe(255);
  });
});

describe("intrinsics with dtype= keywords", () => {
  it("compute as without the keywords (TVM drops them)", () => {
    const src = (kw: string) => `
@T.prim_func
def gate(A: T.Buffer((12,), "float32"), B: T.Buffer((12,), "float32")):
    for i in range(12):
        with T.sblock("gate"):
            vi = T.axis.remap("S", [i])
            B[vi] = T.if_then_else(vi < 6, T.sqrt(A[vi]${kw}), T.exp(A[vi]${kw}) - T.floor(A[vi]${kw})${kw})
`;
    const withKw = parsePrimFunc(src(', dtype="float32"'));
    expect(ir.structuralEqual(withKw, parsePrimFunc(src("")))).toBe(true);
    const A = new Float32Array(12).map((_, k) => k * 0.75);
    const B = new Float32Array(12);
    runPrimFunc(withKw, [A, B]);
    for (let i = 0; i < 12; i++) {
      const a = A[i]!;
      const want = i < 6 ? Math.fround(Math.sqrt(a)) : Math.fround(Math.fround(Math.exp(a)) - Math.floor(a));
      expect(B[i]).toBe(want);
    }
  });
});

describe("bit operations", () => {
  type Op = "shift_left" | "shift_right" | "bitwise_and" | "bitwise_or" | "bitwise_xor";
  const build: Record<Op, (a: ir.PrimExpr, b: ir.PrimExpr) => ir.PrimExpr> = {
    shift_left: shiftLeft,
    shift_right: shiftRight,
    bitwise_and: bitwiseAnd,
    bitwise_or: bitwiseOr,
    bitwise_xor: bitwiseXor,
  };
  const dtypes = [
    { dt: "int8", bits: 8, signed: true },
    { dt: "int16", bits: 16, signed: true },
    { dt: "int32", bits: 32, signed: true },
    { dt: "uint8", bits: 8, signed: false },
    { dt: "uint32", bits: 32, signed: false },
    { dt: "int64", bits: 64, signed: true },
  ] as const;

  function reference(op: Op | "bitwise_not", bits: number, signed: boolean, a: bigint, b: bigint): number {
    const compute = {
      shift_left: () => a << b,
      shift_right: () => a >> b,
      bitwise_and: () => a & b,
      bitwise_or: () => a | b,
      bitwise_xor: () => a ^ b,
      bitwise_not: () => ~a,
    };
    const r = compute[op]();
    return Number(signed ? BigInt.asIntN(bits, r) : BigInt.asUintN(bits, r));
  }

  it("match a BigInt reference for every integer width", () => {
    const arb = fc.constantFrom(...dtypes).chain((d) => {
      // int64 values stay within the executor's exact range (|x| < 2^53).
      const span = d.bits === 64 ? 2 ** 40 : 2 ** d.bits;
      const lo = d.signed ? -span / 2 : 0;
      return fc.record({
        d: fc.constant(d),
        op: fc.constantFrom<Op | "bitwise_not">("shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"),
        a: fc.integer({ min: lo, max: lo + span - 1 }),
        b: fc.integer({ min: d.signed ? -span / 2 : 0, max: (d.signed ? span / 2 : span) - 1 }),
        shift: fc.integer({ min: 0, max: Math.min(d.bits, 32) - 1 }),
      });
    });
    fc.assert(
      fc.property(arb, ({ d, op, a, b, shift }) => {
        const isShift = op === "shift_left" || op === "shift_right";
        const rhs = isShift ? shift : b;
        const x = ir.intImm(a, d.dt);
        const y = ir.intImm(rhs, d.dt);
        const e = op === "bitwise_not" ? bitwiseNot(x) : build[op](x, y);
        expect(evalExpr(e)).toBe(reference(op, d.bits, d.signed, BigInt(a), BigInt(rhs)));
      }),
      { numRuns: 120 },
    );
  });

  it("unpack_nibbles extracts 4-bit fields as written with Python operators", () => {
    const f = corpusFunction("intrinsic_keywords.py", "unpack_nibbles");
    const packed = new Int32Array(16).map((_, k) => (k * 0x12345679) | 0);
    const out = new Float32Array(128);
    runPrimFunc(f, [packed, out]);
    const tail = (~packed[0]! | 1) ^ (packed[1]! << 2);
    for (let i = 0; i < 128; i++) expect(out[i]).toBe(Math.fround((((packed[i >> 3]! >> ((i % 8) * 4)) & 15) - tail) | 0));
  });

  it("reject float operands", () => {
    expect(() => shiftRight(ir.floatImm(1, "float32"), ir.floatImm(1, "float32"))).toThrow(/T.shift_right expects integer operands, got float32/);
  });
});

describe("hints and rsqrt", () => {
  it("hinted: T.assume computes nothing, T.likely is its condition, T.rsqrt is 1/sqrt", () => {
    const f = corpusFunction("intrinsic_keywords.py", "hinted");
    const A = new Float32Array(32).map((_, k) => k + 1);
    const B = new Float32Array(32);
    runPrimFunc(f, [A, B]);
    for (let i = 0; i < 32; i++) {
      expect(B[i]).toBe(i % 2 === 0 ? Math.fround(1 / Math.fround(Math.sqrt(i + 1))) : i);
    }
  });
});

describe("opaque intrinsics", () => {
  it("are refused by name, not mis-executed", () => {
    const f = corpusFunction("opaque_tensor_core.py", "fragment_tile");
    const A = new Float32Array(256);
    const C = new Float32Array(256);
    let err: unknown;
    try {
      runPrimFunc(f, [A, C, 16]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExecutionError);
    expect(String(err)).toMatch(/cannot execute opaque intrinsic T\.tvm_fill_fragment/);
  });

  it("every opaque intrinsic of the registry is refused", () => {
    for (const op of ["tvm_load_matrix_sync", "tvm_access_ptr", "call_extern", "q_multiply_shift", "type_annotation"]) {
      const e = ir.call(op === "q_multiply_shift" ? "int32" : "handle", op, []);
      const f = ir.primFunc([], new Map(), ir.evaluate(e), {});
      expect(() => runPrimFunc(f, []), op).toThrow(new RegExp(`cannot execute opaque intrinsic T\\.${op}`));
    }
  });
});
