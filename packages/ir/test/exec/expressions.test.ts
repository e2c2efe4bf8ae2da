import { describe, expect, it } from "vitest";
import * as ir from "../../src/index.js";
import { ExecutionError, roundToFloat16 } from "../../src/exec/index.js";
import { evalExpr } from "./helpers.js";

const i32 = (v: number) => ir.intImm(v, "int32");
const f32 = (v: number) => ir.floatImm(v, "float32");

describe("integer arithmetic", () => {
  it("wraps int32 add, sub and mul", () => {
    expect(evalExpr(ir.add(i32(2147483647), i32(1)))).toBe(-2147483648);
    expect(evalExpr(ir.sub(i32(-2147483648), i32(1)))).toBe(2147483647);
    expect(evalExpr(ir.mul(i32(65536), i32(65536)))).toBe(0);
    expect(evalExpr(ir.mul(i32(123456789), i32(987654321)))).toBe(Math.imul(123456789, 987654321));
  });

  it("wraps narrow and unsigned types", () => {
    expect(evalExpr(ir.add(ir.intImm(127, "int8"), ir.intImm(1, "int8")))).toBe(-128);
    expect(evalExpr(ir.mul(ir.intImm(300, "int16"), ir.intImm(300, "int16")))).toBe((90000 << 16) >> 16);
    expect(evalExpr(ir.sub(ir.intImm(0, "uint8"), ir.intImm(1, "uint8")))).toBe(255);
    expect(evalExpr(ir.sub(ir.intImm(0, "uint32"), ir.intImm(1, "uint32")))).toBe(4294967295);
    expect(evalExpr(ir.mul(ir.intImm(70000, "uint32"), ir.intImm(70000, "uint32")))).toBe((70000 * 70000) % 2 ** 32);
  });

  it("keeps int64 exact beyond 32 bits", () => {
    expect(evalExpr(ir.mul(ir.intImm(1 << 30, "int64"), ir.intImm(1 << 20, "int64")))).toBe(2 ** 50);
  });

  it("distinguishes C division from floor division on negatives", () => {
    expect(evalExpr(ir.div(i32(-7), i32(2)))).toBe(-3);
    expect(evalExpr(ir.truncmod(i32(-7), i32(2)))).toBe(-1);
    expect(evalExpr(ir.floordiv(i32(-7), i32(2)))).toBe(-4);
    expect(evalExpr(ir.floormod(i32(-7), i32(2)))).toBe(1);
    expect(evalExpr(ir.floormod(i32(7), i32(-2)))).toBe(-1);
    expect(evalExpr(ir.div(i32(-2147483648), i32(-1)))).toBe(-2147483648);
  });

  it("reports integer division by zero naming the expression", () => {
    const x = ir.intImm(5, "int32");
    expect(() => evalExpr(ir.floordiv(x, i32(0)))).toThrow(ExecutionError);
    expect(() => evalExpr(ir.div(x, i32(0)))).toThrow(/division by zero in T\.Div\(5, 0\)/);
  });

  it("computes min, max, comparisons and logic", () => {
    expect(evalExpr(ir.min(i32(-3), i32(2)))).toBe(-3);
    expect(evalExpr(ir.max(i32(-3), i32(2)))).toBe(2);
    expect(evalExpr(ir.lt(i32(1), i32(2)))).toBe(1);
    expect(evalExpr(ir.ge(i32(1), i32(2)))).toBe(0);
    expect(evalExpr(ir.eq(f32(0.5), f32(0.5)))).toBe(1);
    expect(evalExpr(ir.and(ir.lt(i32(1), i32(2)), ir.not(ir.ne(i32(3), i32(3)))))).toBe(1);
    expect(evalExpr(ir.or(ir.boolImm(false), ir.boolImm(false)))).toBe(0);
  });
});

describe("float arithmetic", () => {
  it("rounds float32 after every operation", () => {
    expect(evalExpr(ir.add(f32(16777216), f32(1)))).toBe(16777216);
    expect(evalExpr(ir.add(ir.add(f32(16777216), f32(1)), f32(1)))).toBe(16777216);
    expect(evalExpr(ir.add(ir.floatImm(16777216, "float64"), ir.floatImm(1, "float64")))).toBe(16777217);
    expect(evalExpr(ir.div(f32(1), f32(3)))).toBe(Math.fround(1 / 3));
    expect(evalExpr(f32(0.1))).toBe(Math.fround(0.1));
  });

  it("rounds float16 to half precision", () => {
    expect(evalExpr(ir.add(ir.floatImm(2048, "float16"), ir.floatImm(1, "float16")))).toBe(2048);
    expect(evalExpr(ir.floatImm(0.1, "float16"))).toBe(0.0999755859375);
    expect(roundToFloat16(65519)).toBe(65504);
    expect(roundToFloat16(65520)).toBe(Infinity);
    expect(roundToFloat16(2 ** -25)).toBe(0);
    expect(roundToFloat16(3 * 2 ** -25)).toBe(2 ** -23);
  });

  it("uses floor semantics for float floordiv/floormod and fmod for mod", () => {
    expect(evalExpr(ir.floordiv(f32(-7), f32(2)))).toBe(-4);
    expect(evalExpr(ir.floormod(f32(-7), f32(2)))).toBe(1);
    expect(evalExpr(ir.truncmod(f32(-7), f32(2)))).toBe(-1);
    expect(evalExpr(ir.div(f32(1), f32(0)))).toBe(Infinity);
  });

  it("evaluates the math intrinsics in float32", () => {
    expect(evalExpr(ir.exp(f32(1)))).toBe(Math.fround(Math.E));
    expect(evalExpr(ir.log(f32(2)))).toBe(Math.fround(Math.LN2));
    expect(evalExpr(ir.sqrt(f32(2)))).toBe(Math.fround(Math.SQRT2));
    expect(evalExpr(ir.tanh(f32(0.5)))).toBe(Math.fround(Math.tanh(0.5)));
    expect(evalExpr(ir.sigmoid(f32(0)))).toBe(0.5);
    expect(evalExpr(ir.fabs(f32(-2.5)))).toBe(2.5);
    expect(evalExpr(ir.fabs(i32(-2147483648)))).toBe(-2147483648);
    expect(evalExpr(ir.pow(f32(2), f32(10)))).toBe(1024);
    expect(evalExpr(ir.floor(f32(-1.5)))).toBe(-2);
    expect(evalExpr(ir.ceil(f32(-1.5)))).toBe(-1);
    expect(evalExpr(ir.trunc(f32(-1.5)))).toBe(-1);
  });

  it("rounds halves away from zero, like CUDA roundf", () => {
    expect(evalExpr(ir.round(f32(2.5)))).toBe(3);
    expect(evalExpr(ir.round(f32(-2.5)))).toBe(-3);
    expect(evalExpr(ir.round(f32(0.5)))).toBe(1);
    expect(evalExpr(ir.round(f32(-0.4)))).toBe(-0);
  });
});

describe("casts, select, let and if_then_else", () => {
  it("casts with C semantics", () => {
    expect(evalExpr(ir.cast("int32", f32(-2.7)))).toBe(-2);
    expect(evalExpr(ir.cast("int32", f32(2.7)))).toBe(2);
    expect(evalExpr(ir.cast("int8", i32(200)))).toBe(-56);
    expect(evalExpr(ir.cast("uint8", i32(-1)))).toBe(255);
    expect(evalExpr(ir.cast("float32", ir.floatImm(0.1, "float64")))).toBe(Math.fround(0.1));
    expect(evalExpr(ir.cast("float32", i32(16777217)))).toBe(16777216);
    expect(evalExpr(ir.cast("int32", ir.lt(i32(1), i32(2))))).toBe(1);
    expect(evalExpr(ir.cast("bool", f32(0.25)))).toBe(1);
    expect(evalExpr(ir.cast("int64", ir.floatImm(-3.9, "float64")))).toBe(-3);
  });

  it("Select evaluates both branches, if_then_else only the chosen one", () => {
    const zero = i32(0);
    expect(evalExpr(ir.select(ir.boolImm(true), i32(1), i32(2)))).toBe(1);
    // The unchosen branch divides by zero: Select reports it, if_then_else does not reach it.
    expect(() => evalExpr(ir.select(ir.boolImm(true), i32(1), ir.div(i32(1), zero)))).toThrow(/division by zero/);
    expect(evalExpr(ir.ifThenElse(ir.boolImm(true), i32(1), ir.div(i32(1), zero)))).toBe(1);
  });

  it("binds Let variables", () => {
    const x = ir.variable("x");
    expect(evalExpr(ir.letExpr(x, i32(6), ir.mul(x, ir.add(x, 1))))).toBe(42);
  });

  it("rejects unknown intrinsics at compile time", () => {
    expect(() => evalExpr(ir.call("float32", "no_such_op", [f32(1)]))).toThrow(/does not implement the intrinsic T\.no_such_op/);
  });
});
