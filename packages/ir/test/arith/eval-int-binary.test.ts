import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { evalIntBinary } from "../../src/index.js";

describe("evalIntBinary", () => {
  it("divides as C does (div/mod truncate) and as TVM's floordiv/floormod do", () => {
    expect(evalIntBinary("div", -7, 2)).toBe(-3);
    expect(evalIntBinary("mod", -7, 2)).toBe(-1);
    expect(evalIntBinary("floordiv", -7, 2)).toBe(-4);
    expect(evalIntBinary("floormod", -7, 2)).toBe(1);
    expect(evalIntBinary("floordiv", 7, 0)).toBeUndefined();
    expect(evalIntBinary("mod", 7, 0)).toBeUndefined();
  });

  it("gives 1 or 0 for comparisons and logical operators", () => {
    expect([evalIntBinary("lt", 1, 2), evalIntBinary("ge", 1, 2), evalIntBinary("eq", 3, 3), evalIntBinary("ne", 3, 3)]).toEqual([1, 0, 1, 0]);
    expect([evalIntBinary("and", 2, 0), evalIntBinary("and", 2, 5), evalIntBinary("or", 0, 3), evalIntBinary("or", 0, 0)]).toEqual([0, 1, 1, 0]);
  });

  it("keeps a = b·floordiv(a, b) + floormod(a, b) and a = b·div(a, b) + mod(a, b)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1000, max: 1000 }),
        fc.integer({ min: -50, max: 50 }).filter((b) => b !== 0),
        (a, b) => {
          expect(b * evalIntBinary("floordiv", a, b)! + evalIntBinary("floormod", a, b)!).toBe(a);
          expect(b * evalIntBinary("div", a, b)! + evalIntBinary("mod", a, b)!).toBe(a);
          expect(Math.sign(evalIntBinary("floormod", a, b)!) * Math.sign(b)).not.toBe(-1);
        },
      ),
    );
  });
});
