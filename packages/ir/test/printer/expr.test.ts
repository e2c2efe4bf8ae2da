import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { IRError } from "../../src/errors.js";
import {
  add,
  and,
  boolImm,
  broadcast,
  bufferLoad,
  call,
  cast,
  div,
  eq,
  floatImm,
  floordiv,
  floormod,
  ge,
  gt,
  intImm,
  le,
  letExpr,
  lt,
  max,
  min,
  mul,
  ne,
  not,
  or,
  ramp,
  select,
  stringImm,
  sub,
  truncmod,
  variable,
} from "../../src/expr.js";
import { exp, ifThenElse, storageSync } from "../../src/intrinsics.js";
import { printExpr } from "../../src/printer/index.js";

const [a, b, c] = [variable("a"), variable("b"), variable("c")];
const [x, y] = [variable("x", "float32"), variable("y", "float32")];
const [p, q] = [variable("p", "bool"), variable("q", "bool")];

describe("printExpr literals", () => {
  it("prints int32 bare, other ints and floats typed, bools and strings", () => {
    expect(printExpr(intImm(16))).toBe("16");
    expect(printExpr(intImm(-3))).toBe("-3");
    expect(printExpr(intImm(16, "int64"))).toBe("T.int64(16)");
    expect(printExpr(intImm(7, "uint8"))).toBe("T.uint8(7)");
    expect(printExpr(floatImm(0))).toBe("T.float32(0.0)");
    expect(printExpr(floatImm(-2))).toBe("T.float32(-2.0)");
    expect(printExpr(floatImm(0.5, "float16"))).toBe("T.float16(0.5)");
    expect(printExpr(floatImm(0.1, "float64"))).toBe("T.float64(0.1)");
    expect(printExpr(floatImm(1e-7))).toBe("T.float32(1e-7)");
    expect(printExpr(floatImm(Infinity))).toBe('T.float32("inf")');
    expect(printExpr(floatImm(-Infinity))).toBe('T.float32("-inf")');
    expect(printExpr(floatImm(NaN))).toBe('T.float32("nan")');
    expect(printExpr(boolImm(true))).toBe("T.bool(True)");
    expect(printExpr(boolImm(false))).toBe("T.bool(False)");
    expect(printExpr(stringImm('say "hi"\n'))).toBe('"say \\"hi\\"\\n"');
  });
});

describe("printExpr operators", () => {
  it("uses Python operators where TVM does and T.<Op> calls elsewhere", () => {
    expect(printExpr(add(a, b))).toBe("a + b");
    expect(printExpr(sub(a, b))).toBe("a - b");
    expect(printExpr(mul(a, b))).toBe("a * b");
    expect(printExpr(floordiv(a, b))).toBe("a // b");
    expect(printExpr(floormod(a, b))).toBe("a % b");
    expect(printExpr(div(a, b))).toBe("T.Div(a, b)");
    expect(printExpr(div(x, y))).toBe("x / y");
    expect(printExpr(truncmod(a, b))).toBe("T.truncmod(a, b)");
    expect(printExpr(min(a, b))).toBe("T.min(a, b)");
    expect(printExpr(max(x, 0))).toBe("T.max(x, T.float32(0.0))");
    expect(printExpr(eq(a, b))).toBe("a == b");
    expect(printExpr(ne(a, b))).toBe("a != b");
    expect(printExpr(lt(a, b))).toBe("a < b");
    expect(printExpr(le(a, b))).toBe("a <= b");
    expect(printExpr(gt(a, b))).toBe("a > b");
    expect(printExpr(ge(a, b))).toBe("a >= b");
    expect(printExpr(and(p, q))).toBe("p and q");
    expect(printExpr(or(p, q))).toBe("p or q");
    expect(printExpr(not(p))).toBe("not p");
  });

  it("prints the remaining expression kinds as TVMScript calls", () => {
    const A = declBuffer("A", [4, 4]);
    const Z = declBuffer("Z", []);
    const t = variable("t");
    expect(printExpr(select(p, a, b))).toBe("T.Select(p, a, b)");
    expect(printExpr(cast("float32", a))).toBe('T.Cast("float32", a)');
    expect(printExpr(bufferLoad(A, [a, add(b, 1)]))).toBe("A[a, b + 1]");
    expect(printExpr(bufferLoad(Z, []))).toBe("Z[()]");
    expect(printExpr(ramp(a, 1, 4))).toBe("T.Ramp(a, 1, 4)");
    expect(printExpr(broadcast(x, 8))).toBe("T.Broadcast(x, 8)");
    expect(printExpr(letExpr(t, add(a, 1), mul(t, t)))).toBe("T.Let(t * t, where={t: a + 1})");
    expect(printExpr(exp(x))).toBe("T.exp(x)");
    expect(printExpr(ifThenElse(lt(a, 4), x, y))).toBe("T.if_then_else(a < 4, x, y)");
    expect(printExpr(storageSync("shared"))).toBe('T.tvm_storage_sync("shared")');
    expect(printExpr(call("int32", "my_op", []))).toBe("T.my_op()");
  });
});

describe("printExpr precedence", () => {
  it("adds parentheses only where Python needs them", () => {
    expect(printExpr(mul(add(a, b), c))).toBe("(a + b) * c");
    expect(printExpr(add(a, mul(b, c)))).toBe("a + b * c");
    expect(printExpr(sub(a, sub(b, c)))).toBe("a - (b - c)");
    expect(printExpr(sub(sub(a, b), c))).toBe("a - b - c");
    expect(printExpr(add(a, add(b, c)))).toBe("a + (b + c)");
    expect(printExpr(mul(floordiv(a, b), c))).toBe("a // b * c");
    expect(printExpr(floordiv(a, mul(b, c)))).toBe("a // (b * c)");
    expect(printExpr(floormod(add(a, 1), 4))).toBe("(a + 1) % 4");
    expect(printExpr(mul(a, -1))).toBe("a * -1");
    expect(printExpr(lt(add(a, 1), mul(b, 2)))).toBe("a + 1 < b * 2");
    expect(printExpr(eq(lt(a, b), p))).toBe("(a < b) == p");
    expect(printExpr(and(lt(a, b), or(p, q)))).toBe("a < b and (p or q)");
    expect(printExpr(or(and(p, q), p))).toBe("p and q or p");
    expect(printExpr(not(and(p, q)))).toBe("not (p and q)");
    expect(printExpr(and(not(p), q))).toBe("not p and q");
    expect(printExpr(eq(not(p), q))).toBe("(not p) == q");
    expect(printExpr(mul(min(a, b), add(c, 1)))).toBe("T.min(a, b) * (c + 1)");
  });
});

describe("printExpr input checking", () => {
  it("rejects non-expressions with a clear error", () => {
    expect(() => printExpr({ kind: "Bogus" } as never)).toThrow(IRError);
    expect(() => printExpr({ kind: "Binary", op: "pow", dtype: "int32", a, b } as never)).toThrow(/binary operator "pow"/);
  });
});
