/** TVM's rewrite rules for `+`, `-` and `*` (src/arith/rewrite_simplify.cc), in its order. */
import { isFloat } from "../../dtype.js";
import { type FloatImm, type PrimExpr, binary, intImm } from "../../expr.js";
import type { Match } from "./pattern.js";
import { rules } from "./rules.js";

/** The named operand is not a float: `z - z` is NaN for an infinite float z, not 0. */
const integral =
  (n: string) =>
  (m: Match): boolean =>
    !isFloat(m.e(n).dtype);
const isZeroFloat = (m: Match): boolean => (m.e("f1") as FloatImm).value === 0;

const negated = (a: string, b: string) => (m: { c(n: string): number }) => m.c(a) === -m.c(b);

export const ADD_RULES = rules()
  .in("vector")
  .rw("ramp(b1, s1, lanes) + ramp(b2, s2, lanes)", "ramp(b1 + b2, s1 + s2, lanes)")
  .rw("ramp(b1, s1, lanes) + bcast(x, lanes)", "ramp(b1 + x, s1, lanes)")
  .rw("bcast(x, lanes) + ramp(b1, s1, lanes)", "ramp(x + b1, s1, lanes)")
  .rw("bcast(x, lanes) + bcast(y, lanes)", "bcast(x + y, lanes)")
  .rw("x + bcast(f1, lanes)", "x", isZeroFloat)
  .in("index")
  .rw("(x - y) + y", "x")
  .rw("x + (y - x)", "y")
  .rw("(x - y) + (y - z)", "x - z")
  .rw("(x - y) + (z - x)", "z - y")
  .rw("min(x, y - z) + z", "min(x + z, y)")
  .rw("min(x - z, y) + z", "min(x, y + z)")
  .rw("max(x, y - z) + z", "max(x + z, y)")
  .rw("max(x - z, y) + z", "max(x, y + z)")
  .rw("min(x, y + z * c1) + z * c2", "min(x + z * c2, y)", negated("c1", "c2"))
  .rw("max(x, y + z * c1) + z * c2", "max(x + z * c2, y)", negated("c1", "c2"))
  .rw("min(y + z * c1, x) + z * c2", "min(x + z * c2, y)", negated("c1", "c2"))
  .rw("max(y + z * c1, x) + z * c2", "max(x + z * c2, y)", negated("c1", "c2"))
  .rw(["max(x, y) + min(x, y)", "min(x, y) + max(x, y)", "max(x, y) + min(y, x)", "min(x, y) + max(y, x)"], "x + y")
  .rw("min(x, y + c1) + c2", "min(x + c2, y)", negated("c1", "c2"))
  .rw("min(x + c1, y) + c2", "min(x, y + c2)", negated("c1", "c2"))
  .rw("max(x, y + c1) + c2", "max(x + c2, y)", negated("c1", "c2"))
  .rw("max(x + c1, y) + c2", "max(x, y + c2)", negated("c1", "c2"))
  .rw("(x + c1) + c2", "x + (c1 + c2)")
  .rw("x + x", "x * 2")
  .rw(["x * y + x", "y * x + x", "x + y * x", "x + x * y"], "(y + 1) * x")
  .rw(["x * y + x * z", "y * x + x * z", "x * y + z * x", "y * x + z * x"], "(y + z) * x")
  .rw("tdiv(x, c1) * c1 + tmod(x, c1)", "x")
  .rw(["fdiv(x, y) * y + fmod(x, y)", "y * fdiv(x, y) + fmod(x, y)", "fmod(x, y) + fdiv(x, y) * y", "fmod(x, y) + y * fdiv(x, y)"], "x")
  .rw("fdiv(fmod(x, c2) + c1, c2) + fdiv(x, c2)", "fdiv(x + c1, c2)", (m) => m.c("c2") > 0)
  .rec("fdiv(x, 2) + fmod(x, 2)", "fdiv(x + 1, 2)")
  .rw("fmod(x + c1, 2) + fmod(x, 2)", "1", (m) => ((m.c("c1") % 2) + 2) % 2 === 1)
  .rw("fmod(x, 2) + fmod(x + c1, 2)", "1", (m) => ((m.c("c1") % 2) + 2) % 2 === 1)
  .rec(["x + (c1 - y)", "(c1 - y) + x"], "(x - y) + c1")
  .rec(["(x + c1) + y", "x + (c1 + y)", "x + (y + c1)"], "(x + y) + c1")
  .rec("x + max(y, z)", "max(y, z) + x")
  .rec("x + min(y, z)", "min(y, z) + x")
  .rec("tmod(y, c1) + x * c1", "x * c1 + tmod(y, c1)")
  .rec("fmod(y, c1) + x * c1", "x * c1 + fmod(y, c1)")
  .in("any")
  .rw("select(x, b1, b2) + select(x, s1, s2)", "select(x, b1 + s1, b2 + s2)").rules;

const nonZero = (m: { c(n: string): number }) => m.c("c1") !== 0;
const scaled = (m: { c(n: string): number }) => m.c("c1") !== 0 && m.c("c3") === m.c("c1") * m.c("c2");

export const SUB_RULES = rules()
  .in("vector")
  .rw("ramp(b1, s1, lanes) - ramp(b2, s2, lanes)", "ramp(b1 - b2, s1 - s2, lanes)")
  .rw("ramp(b1, s1, lanes) - bcast(x, lanes)", "ramp(b1 - x, s1, lanes)")
  .rw("bcast(x, lanes) - ramp(b1, s1, lanes)", "ramp(x - b1, 0 - s1, lanes)")
  .rw("bcast(x, lanes) - bcast(y, lanes)", "bcast(x - y, lanes)")
  .in("index")
  .rw(["(x + y) - y", "(y + x) - y"], "x")
  .rw(["x - (y + x)", "x - (x + y)"], "0 - y")
  .rw(["min(x, y) - y", "x - max(y, x)"], "min(x - y, 0)")
  .rw(["x - max(x, y)", "min(y, x) - y"], "min(0, x - y)")
  .rw(["max(x, y) - y", "x - min(y, x)"], "max(x - y, 0)")
  .rw(["x - min(x, y)", "max(y, x) - y"], "max(0, x - y)")
  .rw("x - x", "0")
  .rw(["x * y - x", "y * x - x"], "(y - 1) * x")
  .rw(["x - y * x", "x - x * y"], "(1 - y) * x")
  .rw(["x * y - x * z", "y * x - x * z", "x * y - z * x", "y * x - z * x"], "(y - z) * x")
  .rw("(x + c1) - c2", "x + (c1 - c2)")
  .rw("(c1 - x) - (c2 - y)", "(y - x) + (c1 - c2)")
  .rw(["(x + y) - (x + z)", "(x + y) - (z + x)", "(y + x) - (z + x)", "(y + x) - (x + z)"], "y - z")
  .rw(["min(x + y, z) - x", "min(y + x, z) - x"], "min(y, z - x)")
  .rw(["min(z, x + y) - x", "min(z, y + x) - x"], "min(z - x, y)")
  .rw(["max(x + y, z) - x", "max(y + x, z) - x"], "max(y, z - x)")
  .rw(["max(z, x + y) - x", "max(z, y + x) - x"], "max(z - x, y)")
  .rw(["x - min(x + y, z)", "x - min(y + x, z)"], "max(0 - y, x - z)")
  .rw(["x - min(z, x + y)", "x - min(z, y + x)"], "max(x - z, 0 - y)")
  .rw(["x - max(x + y, z)", "x - max(y + x, z)"], "min(0 - y, x - z)")
  .rw(["x - max(z, x + y)", "x - max(z, y + x)"], "min(x - z, 0 - y)")
  .rw("min(x, y) - min(y, x)", "0")
  .rw("max(x, y) - max(y, x)", "0")
  .rw(["min(b1, b2) - min(s1, s2)", "min(b1, b2) - min(s2, s1)"], "b1 - s1", (m, ctx) => ctx.canProveEqual(sub2(m, "b1", "s1", "b2", "s2"), zeroLike(m)))
  .rw(["max(b1, b2) - max(s1, s2)", "max(b1, b2) - max(s2, s1)"], "b1 - s1", (m, ctx) => ctx.canProveEqual(sub2(m, "b1", "s1", "b2", "s2"), zeroLike(m)))
  .rw("x - tdiv(x, c1) * c1", "tmod(x, c1)", nonZero)
  .rw("tdiv(x, c1) * c1 - x", "0 - tmod(x, c1)", nonZero)
  .rw("x - tdiv(x + y, c1) * c1", "tmod(x + y, c1) - y", nonZero)
  .rw("tdiv(x + y, c1) * c1 - x", "y - tmod(x + y, c1)", nonZero)
  .rw("x - tdiv(x - y, c1) * c1", "tmod(x - y, c1) + y", nonZero)
  .rw("tdiv(x - y, c1) * c1 - x", "0 - tmod(x - y, c1) - y", nonZero)
  .rw("x * c2 - tdiv(x, c1) * c3", "tmod(x, c1) * c2", scaled)
  .rw("tdiv(x, c1) * c3 - x * c2", "0 - tmod(x, c1) * c2", scaled)
  .rw("x * c2 - tdiv(x + y, c1) * c3", "(tmod(x + y, c1) - y) * c2", scaled)
  .rw("tdiv(x + y, c1) * c3 - x * c2", "(y - tmod(x + y, c1)) * c2", scaled)
  .rw("x * c2 - tdiv(x - y, c1) * c3", "(tmod(x - y, c1) + y) * c2", scaled)
  .rw("tdiv(x - y, c1) * c3 - x * c2", "(0 - tmod(x - y, c1) - y) * c2", scaled)
  .rw(
    "tdiv(x + c1, c3) - tdiv(x + c2, c3)",
    "tdiv(tmod(x + fmod(c2, c3), c3) + (c1 - c2), c3)",
    (m, ctx) => ctx.bound(m.e("x")).min >= -m.c("c2") && m.c("c1") >= m.c("c2") && m.c("c3") > 0,
  )
  .rw("tdiv(x + c1, c3) - tdiv(x, c3)", "tdiv(tmod(x, c3) + c1, c3)", (m, ctx) => ctx.bound(m.e("x")).min >= 0 && m.c("c1") >= 0 && m.c("c3") > 0)
  .rw("x - fdiv(x, c1) * c1", "fmod(x, c1)", nonZero)
  .rw("fdiv(x, c1) * c1 - x", "0 - fmod(x, c1)", nonZero)
  .rw("x - fdiv(x + y, c1) * c1", "fmod(x + y, c1) - y", nonZero)
  .rw("fdiv(x + y, c1) * c1 - x", "y - fmod(x + y, c1)", nonZero)
  .rw("x - fdiv(x - y, c1) * c1", "fmod(x - y, c1) + y", nonZero)
  .rw("fdiv(x - y, c1) * c1 - x", "0 - fmod(x - y, c1) - y", nonZero)
  .rec("fdiv(x + c1, 2) - fdiv(x + c2, 2)", "fmod(x, 2) * (fmod(c1, 2) - fmod(c2, 2)) + (fdiv(c1, 2) - fdiv(c2, 2))")
  .rec("fdiv(x, 2) - fdiv(x + c2, 2)", "fmod(x, 2) * (0 - fmod(c2, 2)) - fdiv(c2, 2)")
  .rec("fdiv(x + c1, 2) - fdiv(x, 2)", "fmod(x, 2) * fmod(c1, 2) + fdiv(c1, 2)")
  .rw("x * c2 - fdiv(x, c1) * c3", "fmod(x, c1) * c2", scaled)
  .rw("fdiv(x, c1) * c3 - x * c2", "0 - fmod(x, c1) * c2", scaled)
  .rw("x * c2 - fdiv(x + y, c1) * c3", "(fmod(x + y, c1) - y) * c2", scaled)
  .rw("fdiv(x + y, c1) * c3 - x * c2", "(y - fmod(x + y, c1)) * c2", scaled)
  .rw("x * c2 - fdiv(x - y, c1) * c3", "(fmod(x - y, c1) + y) * c2", scaled)
  .rw("fdiv(x - y, c1) * c3 - x * c2", "(0 - fmod(x - y, c1) - y) * c2", scaled)
  .rec("fdiv(x + 1, 2) - fmod(x, 2)", "fdiv(x, 2)")
  .rw("fdiv(x + c1, c3) - fdiv(x + c2, c3)", "fdiv(fmod(x + fmod(c2, c3), c3) + (c1 - c2), c3)", (m) => m.c("c3") > 0)
  .rw("fdiv(x + c1, c3) - fdiv(x, c3)", "fdiv(fmod(x, c3) + c1, c3)", (m) => m.c("c3") > 0)
  .rw("x - c1", "x + (0 - c1)")
  .rec("(x + c1) - y", "(x - y) + c1")
  .rec("x - (y + c1)", "(x - y) + (0 - c1)")
  .rec("x - (y - z)", "(x + z) - y")
  .rec("x - y * c1", "x + y * (0 - c1)")
  // Other dtypes: only cancellations (no side effects can occur in our expressions' operands).
  .in("other")
  .rw("x - x", "0")
  .rw("(x + y) - y", "x")
  .rw("(x + y) - x", "y")
  .rw("x - (y + x)", "0 - y")
  .rw("x - (x + y)", "0 - y")
  .in("any")
  .rw("select(x, b1, b2) - select(x, s1, s2)", "select(x, b1 - s1, b2 - s2)")
  .rw("select(x, y, z) - z", "select(x, y - z, 0)", integral("z"))
  .rw("select(x, y, z) - y", "select(x, 0, z - y)", integral("y")).rules;

export const MUL_RULES = rules()
  .in("vector")
  .rw("bcast(x, lanes) * bcast(y, lanes)", "bcast(x * y, lanes)")
  .rw(["ramp(b1, s1, lanes) * bcast(x, lanes)", "bcast(x, lanes) * ramp(b1, s1, lanes)"], "ramp(b1 * x, s1 * x, lanes)")
  .rw("bcast(f1, lanes) * x", "bcast(f1, lanes)", isZeroFloat)
  .in("index")
  .rw("(x + c1) * c2", "x * c2 + c1 * c2")
  .rw("(x * c1) * c2", "x * (c1 * c2)")
  .rw(["min(x, y) * max(x, y)", "max(x, y) * min(x, y)"], "x * y")
  .rw("fdiv(x - fmod(x, c2), c1) * c1", "x - fmod(x, c2)", negated("c1", "c2"))
  .rec("x * (c1 * y)", "(x * y) * c1")
  .rec("c1 * x", "x * c1")
  .rec("(x - y) * c1", "(y - x) * (0 - c1)", (m) => m.c("c1") < 0).rules;

/** `(a - b) - (c - d)` of bound names, for the min/max difference rules' proof obligation. */
function sub2(m: Match, a: string, b: string, c: string, d: string): PrimExpr {
  return binary("sub", binary("sub", m.e(a), m.e(b)), binary("sub", m.e(c), m.e(d)));
}

function zeroLike(m: Match): PrimExpr {
  return intImm(0, m.e("b1").dtype);
}
