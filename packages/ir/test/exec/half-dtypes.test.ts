import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { float16Bits, float16FromBits, roundToBFloat16, roundToFloat16, roundToTF32, truncateToTF32 } from "../../src/exec/index.js";
import { evalExpr } from "./helpers.js";

const bf16 = (v: number) => ir.floatImm(v, "bfloat16");
const f16 = (v: number) => ir.floatImm(v, "float16");

describe("bfloat16 in the executor", () => {
  it("rounds constants and every arithmetic result to bfloat16 (ties to even)", () => {
    expect(evalExpr(bf16(0.1))).toBe(roundToBFloat16(0.1));
    expect(evalExpr(ir.add(bf16(256), bf16(1)))).toBe(256);
    expect(evalExpr(ir.add(bf16(256), bf16(3)))).toBe(260);
    expect(evalExpr(ir.div(bf16(1), bf16(3)))).toBe(roundToBFloat16(1 / 3));
    expect(evalExpr(ir.mul(bf16(2 ** 100), bf16(2 ** 100)))).toBe(Infinity);
    expect(evalExpr(ir.floormod(bf16(-7), bf16(2)))).toBe(1);
  });

  it("matches exact arithmetic rounded once, for random operands", () => {
    const value = fc.double({ min: -1e4, max: 1e4, noNaN: true }).map(roundToBFloat16);
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(evalExpr(ir.add(bf16(a), bf16(b)))).toBe(roundToBFloat16(a + b));
        expect(evalExpr(ir.mul(bf16(a), bf16(b)))).toBe(roundToBFloat16(a * b));
      }),
      { numRuns: 200 },
    );
  });

  it("divides float16 values to the nearest half of the exact quotient (checked in exact integer arithmetic)", () => {
    // Every half is k·2^-24 for an integer k; compare |a − q·b| exactly, scaled by 2^48, for the two halves around a/b.
    const scaled = (x: number): bigint => BigInt(x * 2 ** 24);
    const half = fc
      .integer({ min: 0, max: 0x7bff })
      .chain((bits) => fc.constantFrom(bits, bits | 0x8000))
      .map(float16FromBits);
    fc.assert(
      fc.property(half, half, (a, b) => {
        fc.pre(b !== 0);
        const q = evalExpr(ir.div(f16(a), f16(b)));
        const r = Math.abs(q);
        if (r === Infinity) {
          expect(Math.abs(a / b)).toBeGreaterThanOrEqual(65520);
          return;
        }
        const residual = (h: number): bigint => {
          const d = scaled(Math.abs(a)) * (1n << 24n) - scaled(h) * scaled(Math.abs(b));
          return d < 0n ? -d : d;
        };
        const neighbours = [float16FromBits(float16Bits(r) + 1), ...(r > 0 ? [float16FromBits(float16Bits(r) - 1)] : [])].filter(Number.isFinite);
        for (const other of neighbours) {
          const [mine, theirs] = [residual(r), residual(other)];
          expect(mine <= theirs).toBe(true);
          if (mine === theirs) expect(float16Bits(r) & 1).toBe(0);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("casts between float16, bfloat16, float32, float64 and integers", () => {
    // float16 → bfloat16 loses mantissa bits; bfloat16 → float32 is exact.
    expect(evalExpr(ir.cast("bfloat16", f16(1 + 2 ** -10)))).toBe(1);
    expect(evalExpr(ir.cast("float32", bf16(3.5)))).toBe(3.5);
    expect(evalExpr(ir.cast("float16", bf16(1e30)))).toBe(Infinity);
    expect(evalExpr(ir.cast("int32", bf16(-2.75)))).toBe(-2);
    expect(evalExpr(ir.cast("bfloat16", ir.intImm(257, "int32")))).toBe(256);
    expect(evalExpr(ir.cast("int64", bf16(-3.5)))).toBe(-3);
    expect(evalExpr(ir.cast("bool", ir.cast("float16", bf16(0))))).toBe(0);
  });

  it("rounds a float64 cast to float16/bfloat16 once, from the exact value", () => {
    const x = ir.floatImm(1 + 2 ** -11 + 2 ** -40, "float64");
    expect(evalExpr(ir.cast("float16", x))).toBe(1 + 2 ** -10);
    expect(evalExpr(ir.cast("float16", ir.cast("float32", x)))).toBe(1);
  });

  it("keeps NaN, infinities and signed zeros", () => {
    expect(evalExpr(ir.div(bf16(0), bf16(0)))).toBeNaN();
    expect(evalExpr(ir.div(f16(1), f16(-0)))).toBe(-Infinity);
    expect(Object.is(evalExpr(ir.mul(bf16(-1), bf16(0))), -0)).toBe(true);
    expect(evalExpr(ir.cast("bfloat16", f16(Number.NaN)))).toBeNaN();
  });

  it("runs a bfloat16 kernel parsed from TVMScript, accumulating in float32", () => {
    const func = ir.parsePrimFunc(`
@T.prim_func
def dot(A: T.Buffer((8,), "bfloat16"), B: T.Buffer((8,), "bfloat16"), C: T.Buffer((1,), "float32"), D: T.Buffer((1,), "bfloat16")):
    for k in range(8):
        with T.block("dot"):
            vk = T.axis.reduce(8, k)
            with T.init():
                C[0] = T.float32(0)
            C[0] = C[0] + T.Cast("float32", A[vk]) * T.Cast("float32", B[vk])
    with T.block("narrow"):
        D[0] = T.Cast("bfloat16", C[0])
`);
    const a = Float32Array.from({ length: 8 }, (_, i) => roundToBFloat16(1 + i / 7));
    const b = Float32Array.from({ length: 8 }, (_, i) => roundToBFloat16(0.3 - i / 11));
    const c = new Float32Array(1);
    const d = new Float32Array(1);
    ir.runPrimFunc(func, [a, b, c, d]);
    let sum = 0;
    for (let i = 0; i < 8; i++) sum = Math.fround(sum + Math.fround(a[i]! * b[i]!));
    expect(c[0]).toBe(sum);
    expect(d[0]).toBe(roundToBFloat16(sum));
    // Arguments given as unrounded numbers are rounded into the buffer's dtype on the way in.
    const random = ir.randomArgs(func, 3);
    expect(Array.from(random[0] as Float32Array).every((v) => roundToBFloat16(v) === v)).toBe(true);
  });
});

describe("T.tf32_round", () => {
  it("rounds a float32 to tf32, ties away from zero", () => {
    const x = ir.floatImm(1 + 2 ** -11, "float32");
    expect(evalExpr(ir.tf32Round(x))).toBe(1 + 2 ** -10);
    expect(evalExpr(ir.tf32Round(ir.floatImm(Math.fround(Math.PI), "float32")))).toBe(roundToTF32(Math.PI));
  });

  it("refuses operands that are not float32, naming the call", () => {
    expect(() => ir.tf32Round(f16(1))).toThrow(/T\.tf32_round expects a float32 operand, got float16/);
    expect(() => ir.tf32Round(ir.intImm(1, "int32"))).toThrow(/T\.tf32_round expects a float32 operand, got int32/);
  });

  it("parses and prints as T.tf32_round", () => {
    const text = `@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("r"):
            vi = T.axis.spatial(4, i)
            B[vi] = T.tf32_round(A[vi])
`;
    const func = ir.parsePrimFunc(text);
    expect(ir.printTVMScript(func)).toContain("T.tf32_round(A[vi])");
    const a = Float32Array.from([1 + 2 ** -11, -(1 + 2 ** -12), 3, 1e-40]);
    const b = new Float32Array(4);
    ir.runPrimFunc(func, [a, b]);
    expect(Array.from(b)).toEqual(Array.from(a, (v) => roundToTF32(v)));
  });

  it("agrees with float16 rounding where tf32 and float16 share the mantissa width, except on ties", () => {
    expect(roundToTF32(1 + 3 * 2 ** -11)).toBe(roundToFloat16(1 + 3 * 2 ** -11));
    expect(roundToTF32(1 + 2 ** -11)).not.toBe(roundToFloat16(1 + 2 ** -11));
  });
});

describe("T.tf32_truncate", () => {
  const bits = (x: number) => new Uint32Array(Float32Array.of(x).buffer)[0]!;

  it("clears the low 13 mantissa bits of a float32 (no rounding up), keeping sign, exponent and the top 10 bits", () => {
    expect(evalExpr(ir.tf32Truncate(ir.floatImm(1 + 2 ** -10 + 2 ** -11 + 2 ** -20, "float32")))).toBe(1 + 2 ** -10);
    expect(evalExpr(ir.tf32Truncate(ir.floatImm(-(1 + 2 ** -11), "float32")))).toBe(-1);
    fc.assert(
      fc.property(fc.float({ noNaN: true }), (v) => {
        const x = Math.fround(v);
        const t = truncateToTF32(x);
        // The kept bits are x's, the rest zero; |t| ≤ |x| and rounding lands on t or one tf32 ulp above it.
        expect(bits(t)).toBe((bits(x) & 0xffffe000) >>> 0);
        expect(Math.abs(t)).toBeLessThanOrEqual(Math.abs(x));
        expect(roundToTF32(t)).toBe(t);
      }),
    );
  });

  it("refuses operands that are not float32, naming the call", () => {
    expect(() => ir.tf32Truncate(f16(1))).toThrow(/T\.tf32_truncate expects a float32 operand, got float16/);
  });

  it("parses, prints and runs as T.tf32_truncate", () => {
    const text = `@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("r"):
            vi = T.axis.spatial(4, i)
            B[vi] = T.tf32_truncate(A[vi])
`;
    const func = ir.parsePrimFunc(text);
    expect(ir.printTVMScript(func)).toContain("T.tf32_truncate(A[vi])");
    const a = Float32Array.from([1 + 2 ** -11, -(1 + 3 * 2 ** -12), 3, 1e-40]);
    const b = new Float32Array(4);
    ir.runPrimFunc(func, [a, b]);
    expect(Array.from(b)).toEqual(Array.from(a, (v) => truncateToTF32(v)));
    expect(b[0]).not.toBe(roundToTF32(a[0]!));
  });
});
