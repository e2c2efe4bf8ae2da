import { describe, expect, it } from "vitest";
import { add, floordiv, floormod, intImm, max, min, mul, sub, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { IRError } from "../../src/errors.js";
import {
  Analyzer,
  UNBOUNDED_INTERVAL,
  type IntervalSet,
  NEG_INF,
  POS_INF,
  evalSet,
  intervalFromRange,
  rangeOfInterval,
  unionIntervals,
} from "../../src/arith/index.js";
import { show } from "./exprTestUtils.js";

function showSet(s: IntervalSet): string {
  return `[${s.min.kind === "NegInf" ? "-inf" : show(s.min)}, ${s.max.kind === "PosInf" ? "+inf" : show(s.max)}]`;
}

const k = variable("k");
const vi = variable("vi");
const n = variable("n");
const dom = new Map([[k, intervalFromRange(range(0, 8))]]);

describe("evalSet", () => {
  it("relaxes loop variables and keeps others symbolic", () => {
    expect(showSet(evalSet(add(mul(vi, 8), k), dom))).toBe("[vi * 8, vi * 8 + 7]");
    expect(showSet(evalSet(sub(vi, k), dom))).toBe("[vi - 7, vi]");
    expect(showSet(evalSet(mul(k, -2), dom))).toBe("[-14, 0]");
  });
  it("handles floordiv and floormod by positive constants", () => {
    expect(showSet(evalSet(floordiv(add(mul(vi, 8), k), 4), dom))).toBe("[vi * 2, vi * 2 + 1]");
    expect(showSet(evalSet(floormod(add(mul(vi, 8), k), 8), dom))).toBe("[0, 7]");
    expect(showSet(evalSet(floormod(k, 4), dom))).toBe("[0, 3]");
  });
  it("multiplies by a symbolic factor only when its sign is known", () => {
    const an = new Analyzer();
    an.bind(n, range(1, 16));
    expect(showSet(evalSet(mul(k, n), dom, an))).toBe("[0, n * 7]");
    const unknownSign = evalSet(mul(k, n), dom);
    expect(showSet(unknownSign)).toBe("[-2147483648, 2147483647]");
  });
  it("handles min and max", () => {
    expect(showSet(evalSet(min(k, 3), dom))).toBe("[0, 3]");
    expect(showSet(evalSet(max(k, n), dom))).toBe("[T.max(0, n), T.max(7, n)]");
  });
  it("leaves expressions without relaxed variables as a point", () => {
    const s = evalSet(add(vi, 1), dom);
    expect(s.min).toBe(s.max);
    expect(show(s.min as never)).toBe("vi + 1");
  });
});

describe("interval helpers", () => {
  it("converts between ranges and intervals", () => {
    const r = rangeOfInterval(evalSet(add(mul(vi, 8), k), dom));
    expect(show(r.min)).toBe("vi * 8");
    expect(show(r.extent)).toBe("8");
    expect(() => rangeOfInterval(UNBOUNDED_INTERVAL)).toThrow(IRError);
  });
  it("unions intervals, keeping infinities", () => {
    const a = { min: mul(vi, 4), max: add(mul(vi, 4), 3) };
    const b = { min: add(mul(vi, 4), 2), max: add(mul(vi, 4), 5) };
    expect(showSet(unionIntervals(a, b))).toBe("[vi * 4, vi * 4 + 5]");
    expect(showSet(unionIntervals(a, { min: NEG_INF, max: intImm(0) }))).toBe("[-inf, T.max(vi * 4 + 3, 0)]");
    expect(unionIntervals(a, { min: intImm(0), max: POS_INF }).max).toBe(POS_INF);
  });
});
