import { describe, expect, it } from "vitest";
import { declBuffer } from "../../src/buffer.js";
import { IRError } from "../../src/errors.js";
import {
  add,
  and,
  broadcast,
  bufferLoad,
  cast,
  constant,
  div,
  eq,
  floatImm,
  floordiv,
  intImm,
  letExpr,
  lt,
  max,
  mul,
  not,
  ramp,
  select,
  stringImm,
  sub,
  variable,
} from "../../src/expr.js";
import { checkIntrinsicCall, exp, ifThenElse, pow, storageSync } from "../../src/intrinsics.js";

describe("expression constructors", () => {
  const i = variable("i");
  const x = variable("x", "float32");

  it("builds every leaf", () => {
    expect(intImm(3)).toEqual({ kind: "IntImm", dtype: "int32", value: 3 });
    expect(floatImm(0.5, "float64").dtype).toBe("float64");
    expect(stringImm("shared").value).toBe("shared");
    expect(constant(1, "bool")).toEqual({ kind: "IntImm", dtype: "bool", value: 1 });
    expect(() => intImm(1.5)).toThrow(IRError);
    expect(() => floatImm(1, "int32")).toThrow("not a float type");
  });

  it("gives variables identity, not names", () => {
    const a = variable("v");
    const b = variable("v");
    expect(a).not.toBe(b);
  });

  it("types literals by the other operand", () => {
    const e = add(x, 1);
    expect(e.dtype).toBe("float32");
    expect(e.b).toEqual(floatImm(1, "float32"));
    expect(mul(i, 4).b).toEqual(intImm(4));
  });

  it("widens integers and promotes int to float", () => {
    const j = variable("j", "int64");
    const s = add(i, j);
    expect(s.dtype).toBe("int64");
    expect(s.a.kind).toBe("Cast");
    expect(add(i, x).dtype).toBe("float32");
  });

  it("types comparisons as bool and requires bool for logic", () => {
    expect(lt(i, 3).dtype).toBe("bool");
    expect(and(lt(i, 3), eq(i, 1)).dtype).toBe("bool");
    expect(() => and(i, i)).toThrow("operands must be bool");
    expect(() => not(i)).toThrow("must be bool");
    expect(() => add(lt(i, 1), lt(i, 2))).toThrow("arithmetic on bool");
  });

  it("builds select, cast, let and C/floor division nodes", () => {
    expect(select(lt(i, 0), 1, 2).dtype).toBe("int32");
    expect(() => select(i, 1, 2)).toThrow("condition must be bool");
    expect(cast("float32", i)).toMatchObject({ kind: "Cast", dtype: "float32" });
    expect(cast("int32", i)).toBe(i);
    const v = variable("t");
    expect(letExpr(v, 3, add(v, 1)).dtype).toBe("int32");
    expect(div(i, 2).op).toBe("div");
    expect(floordiv(i, 2).op).toBe("floordiv");
    expect(sub(max(i, 0), 1).a).toMatchObject({ op: "max" });
  });

  it("checks buffer load arity and index types", () => {
    const A = declBuffer("A", [4, 4]);
    expect(bufferLoad(A, [i, 0]).dtype).toBe("float32");
    expect(() => bufferLoad(A, [i])).toThrow("1 indices given for a 2-dimensional buffer");
    expect(() => bufferLoad(A, [x, 0])).toThrow("index must be an integer");
  });

  it("builds vectors", () => {
    const r = ramp(i, 1, 4);
    expect(r.dtype).toBe("int32x4");
    const A = declBuffer("A", [16]);
    expect(bufferLoad(A, [r]).dtype).toBe("float32x4");
    expect(broadcast(x, 4).dtype).toBe("float32x4");
    expect(add(broadcast(x, 4), x).dtype).toBe("float32x4");
    expect(() => ramp(i, 1, 1)).toThrow("lanes must be an integer > 1");
  });

  it("checks intrinsics", () => {
    expect(exp(x).dtype).toBe("float32");
    expect(() => exp(i)).toThrow("expects a float operand");
    expect(pow(x, 2).args[1]).toEqual(floatImm(2, "float32"));
    expect(ifThenElse(lt(i, 4), x, 0).dtype).toBe("float32");
    expect(storageSync("shared").op).toBe("tvm_storage_sync");
    expect(() => checkIntrinsicCall("exp", [x, x])).toThrow("T.exp takes 1 argument, got 2");
    expect(() => checkIntrinsicCall("nope", [x])).toThrow('unknown intrinsic "nope"');
  });
});
