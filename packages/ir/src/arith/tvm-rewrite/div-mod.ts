/** TVM's rewrite rules for floordiv, floormod, truncdiv and truncmod (index types and uint). */
import { dtypeInfo } from "../../dtype.js";
import { type PrimExpr, binary, broadcast, intImm, ramp } from "../../expr.js";
import { floorDivInt, floorModInt } from "../constFold.js";
import { foldingBinary as op } from "./folding.js";
import type { Match } from "./pattern.js";
import { type RuleContext, rules } from "./rules.js";

const c = (m: Match, n: string): number => m.c(n);
const divides = (m: Match): boolean => c(m, "c2") > 0 && c(m, "c1") % c(m, "c2") === 0;
const nonNegative = (n: string) => (m: Match, ctx: RuleContext) => ctx.bound(m.e(n)).min >= 0;

/** `floordiv(x * c1 + y, c2)` (y may be absent): TVM's residue test, then c2 a multiple of c1. */
function scaledQuotient(m: Match, ctx: RuleContext): PrimExpr | undefined {
  const [c1, c2] = [c(m, "c1"), c(m, "c2")];
  const x = m.e("x");
  const dt = x.dtype;
  const y = m.exprs.get("y") ?? intImm(0, dt);
  if (c2 === 0) return undefined;
  const residue = op("floordiv", op("add", op("mul", x, floorModInt(c1, c2)), op("floormod", y, c2)), c2);
  const yDiv = op("floordiv", y, c2);
  const yDivOrZero = ctx.canProveEqual(yDiv, intImm(0, dt)) ? intImm(0, dt) : yDiv;
  const b = ctx.bound(residue);
  if (Number.isFinite(b.min) && b.min === b.max) return op("add", op("mul", x, floorDivInt(c1, c2)), op("add", yDivOrZero, intImm(b.max, dt)));
  if (c1 > 0 && c2 > 0 && c2 % c1 === 0 && ctx.bound(op("floormod", y, c2)).max < c1) return op("add", op("floordiv", x, c2 / c1), yDivOrZero);
  return undefined;
}

/** `floormod(x, c1)` from the modular set and bounds of x. */
function remainderByFacts(m: Match, ctx: RuleContext): PrimExpr | undefined {
  const c1 = c(m, "c1");
  if (c1 <= 0) return undefined;
  const x = m.e("x");
  const mod = ctx.modular(x);
  if (mod.coeff % c1 === 0) return intImm(floorModInt(mod.base, c1), x.dtype);
  const b = ctx.bound(x);
  if (b.min >= 0 && b.max < c1) return x;
  return undefined;
}

/**
 * `ramp(b1, c1, lanes) // c2` and `% c2` from the modular set of b1 (TVM's vector rules): when
 * every lane falls in one period, the quotient is one value and the remainder a ramp.
 * Truncating forms need b1 ≥ 0 and c1 ≥ 0, where they are the flooring ones.
 */
function rampDivMod(kind: "div" | "mod", truncating: boolean) {
  return (m: Match, ctx: RuleContext): PrimExpr | undefined => {
    const [c1, c2] = [c(m, "c1"), c(m, "c2")];
    const b1 = m.e("b1");
    const lanes = m.lanes.get("lanes")!;
    if (c2 <= 0 || (truncating && (c1 < 0 || !nonNegativeExpr(ctx, b1)))) return undefined;
    const dt = b1.dtype;
    const divOp = truncating ? "div" : "floordiv";
    const modOp = truncating ? "mod" : "floormod";
    const bmod = ctx.modular(b1);
    // Scalable lanes (vscale × k) have no last lane known here: TVM keeps only the rule that
    // holds for any lane count, the remainder of a ramp whose base is a multiple of c2.
    if (lanes < 0) {
      const coeffMultiple = bmod.coeff % c2 === 0;
      return kind === "mod" && coeffMultiple
        ? binary(modOp, ramp(intImm(floorModInt(bmod.base, c2), dt), intImm(c1, dt), lanes), broadcast(intImm(c2, dt), lanes))
        : undefined;
    }
    const last = bmod.base + (lanes - 1) * c1;
    const onePeriod = floorDivInt(bmod.base, c2) === floorDivInt(last, c2);
    const coeffMultiple = bmod.coeff % c2 === 0;
    const insideCoeff = bmod.coeff !== 0 && c2 % bmod.coeff === 0 && last < bmod.coeff;
    if (kind === "div") return onePeriod && (coeffMultiple || insideCoeff) ? broadcast(op(divOp, b1, intImm(c2, dt)), lanes) : undefined;
    if (onePeriod && coeffMultiple) return ramp(intImm(floorModInt(bmod.base, c2), dt), intImm(c1, dt), lanes);
    if (onePeriod && insideCoeff) return ramp(op(modOp, b1, intImm(c2, dt)), intImm(c1, dt), lanes);
    if (coeffMultiple) return binary(modOp, ramp(intImm(floorModInt(bmod.base, c2), dt), intImm(c1, dt), lanes), broadcast(intImm(c2, dt), lanes));
    return undefined;
  };
}

/**
 * Every lane of `ramp(b1, c1, lanes)` is ≥ 0, where truncation is flooring. TVM applies its
 * truncating ramp rules without this guard, which is wrong for lanes of mixed sign
 * (`ramp(-1, 2, 2) / 2` is [0, 0], not `ramp(0, 1, 2)`).
 */
function lanesNonNegative(m: Match, ctx: RuleContext): boolean {
  const low = ctx.bound(m.e("b1")).min;
  const lanes = m.lanes.get("lanes")!;
  // Scalable lanes have no known count: only a non-decreasing ramp stays non-negative.
  if (lanes < 0) return low >= 0 && c(m, "c1") >= 0;
  return low >= 0 && low + (lanes - 1) * Math.min(c(m, "c1"), 0) >= 0;
}

function nonNegativeExpr(ctx: RuleContext, e: PrimExpr): boolean {
  return ctx.bound(e).min >= 0;
}

export const FLOORDIV_RULES = rules()
  .in("vector")
  .rw("fdiv(bcast(x, lanes), bcast(y, lanes))", "bcast(fdiv(x, y), lanes)")
  .rw("fdiv(ramp(b1, c1, lanes), bcast(c2, lanes))", "ramp(fdiv(b1, c2), fdiv(c1, c2), lanes)", (m) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0)
  .rw("fdiv(ramp(b1, c1, lanes), bcast(c2, lanes))", rampDivMod("div", false))
  .in("index")
  .rw("fdiv(fdiv(x, c1), c2)", "fdiv(x, c1 * c2)", (m) => c(m, "c1") > 0 && c(m, "c2") > 0)
  .rw("fdiv(fdiv(x, c1) + c2, c3)", "fdiv(x + c1 * c2, c1 * c3)", (m) => c(m, "c1") > 0 && c(m, "c3") > 0)
  .rw(["fdiv(x * c1 + y, c2)", "fdiv(x * c1, c2)", "fdiv(y + x * c1, c2)"], scaledQuotient)
  .rw("fdiv(x, x)", "1")
  .rw(["fdiv(x * c1, x)", "fdiv(c1 * x, x)"], "c1")
  .rw("fdiv(fmod(x, 2) + 1, 2)", "fmod(x, 2)")
  .rw("fdiv(min(x * c1, y), c2)", "min(x * fdiv(c1, c2), fdiv(y, c2))", divides)
  .rw("fdiv(max(x * c1, y), c2)", "max(x * fdiv(c1, c2), fdiv(y, c2))", divides)
  .rw("fdiv(min(y, x * c1), c2)", "min(fdiv(y, c2), x * fdiv(c1, c2))", divides)
  .rw("fdiv(max(y, x * c1), c2)", "max(fdiv(y, c2), x * fdiv(c1, c2))", divides)
  .rw("fdiv(x * c1 + y + z, c2)", "x * fdiv(c1, c2) + fdiv(y + z, c2)", divides)
  .rw(
    "fdiv(x * c1 + y + z, c2)",
    "fdiv(x, fdiv(c2, c1))",
    (m, ctx) =>
      c(m, "c1") > 0 &&
      c(m, "c2") > 0 &&
      c(m, "c2") % c(m, "c1") === 0 &&
      ctx.canProveEqual(op("floordiv", op("add", m.e("y"), m.e("z")), m.e("c1")), intImm(0, m.e("x").dtype)),
  )
  .rw(["fdiv(x * c1 - y + z, c2)", "fdiv(x * c1 + z - y, c2)"], "x * fdiv(c1, c2) + fdiv(z - y, c2)", divides)
  .rw("fdiv(y + x * c1 + z, c2)", "x * fdiv(c1, c2) + fdiv(y + z, c2)", divides)
  .rw("fdiv(x + c1, c2)", "fdiv(x, c2) + fdiv(c1, c2)", divides)
  .rw("fdiv(x + c1, c2)", "fdiv(c1, c2)", (m, ctx) => {
    const [c1, c2] = [c(m, "c1"), c(m, "c2")];
    if (!(c1 > 0 && c2 > 0)) return false;
    const b = ctx.bound(m.e("x"));
    return b.min >= -(c1 % c2) && b.max < c2 - (c1 % c2);
  })
  .rw("fdiv(x * c1, x * c2)", "fdiv(c1, c2)", (m) => c(m, "c2") > 0)
  .rw(["fdiv(x + y, x)", "fdiv(y + x, x)"], "fdiv(y, x) + 1", nonNegative("x"))
  .rw(["fdiv((x + y) + z, x)", "fdiv((y + x) + z, x)", "fdiv(y + (z + x), x)", "fdiv(y + (x + z), x)"], "fdiv(y + z, x) + 1", nonNegative("x"))
  .rw(["fdiv(x * y, y)", "fdiv(y * x, y)"], "x", nonNegative("y"))
  .rw(["fdiv(x * z + y, z)", "fdiv(z * x + y, z)"], "x + fdiv(y, z)", nonNegative("z"))
  .rw(["fdiv(y + x * z, z)", "fdiv(y + z * x, z)"], "fdiv(y, z) + x", nonNegative("z"))
  .rw("fdiv(x * z * c1 + y, z * c1)", "x + fdiv(y, z * c1)", (m, ctx) => ctx.bound(op("mul", m.e("z"), m.e("c1"))).min >= 0)
  .rw("fdiv(x - fmod(x, c1), c1)", "fdiv(x, c1)", (m) => c(m, "c1") !== 0)
  .in("uint")
  .rw("fdiv(x, x)", "1")
  .rw("fdiv(x, c2)", "0", (m, ctx) => {
    const b = ctx.bound(m.e("x"));
    return c(m, "c2") > 0 && b.min >= 0 && b.max < c(m, "c2");
  })
  .in("uintAsIndex")
  .rw("fdiv(x * c1, c2)", "x * fdiv(c1, c2)", divides)
  .rw(["fdiv(x * c1 + y, c2)", "fdiv(y + x * c1, c2)"], "x * fdiv(c1, c2) + fdiv(y, c2)", divides)
  .rw(["fdiv(x * c1 + y + z, c2)", "fdiv(y + x * c1 + z, c2)"], "x * fdiv(c1, c2) + fdiv(y + z, c2)", divides).rules;

/** Does c divide 2^bits of x's dtype (a power of two no larger)? Then wrap-around keeps residues. */
function powerOfTwoDivisor(m: Match, name: string): boolean {
  const v = c(m, name);
  return v > 0 && Number.isInteger(Math.log2(v)) && Math.log2(v) <= dtypeInfo(m.e(name).dtype).bits;
}

export const FLOORMOD_RULES = rules()
  .in("vector")
  .rw("fmod(bcast(x, lanes), bcast(y, lanes))", "bcast(fmod(x, y), lanes)")
  .rw("fmod(ramp(b1, c1, lanes), bcast(c2, lanes))", "bcast(fmod(b1, c2), lanes)", (m) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0)
  .rw("fmod(ramp(b1, c1, lanes), bcast(c2, lanes))", rampDivMod("mod", false))
  .in("index")
  .rw("fmod(x * c1, c2)", "fmod(x * fmod(c1, c2), c2)", (m) => c(m, "c2") !== 0)
  .rw(
    "fmod(x * c1 + y, c2)",
    "fmod(x, fdiv(c2, c1)) * c1 + y",
    (m, ctx) =>
      c(m, "c1") > 0 && c(m, "c2") > 0 && c(m, "c2") % c(m, "c1") === 0 && ctx.canProveEqual(op("floordiv", m.e("y"), m.e("c1")), intImm(0, m.e("x").dtype)),
  )
  .rw("fmod(x * c1 + y, c2)", "fmod(x * fmod(c1, c2) + y, c2)", divides)
  .rw("fmod(x + c1, c2)", "fmod(x + fmod(c1, c2), c2)", (m) => c(m, "c2") > 0 && (c(m, "c1") >= c(m, "c2") || c(m, "c1") < 0))
  .rw("fmod(x + y * c1, c2)", "fmod(x + y * fmod(c1, c2), c2)", divides)
  .rw("fmod(x * c1, x * c2)", "x * fmod(c1, c2)", (m) => c(m, "c2") !== 0)
  .rw(["fmod(x * y, y)", "fmod(y * x, y)"], "0")
  .rw(["fmod(x + fmod(z, y), y)", "fmod(fmod(z, y) + x, y)"], "0", (m, ctx) =>
    ctx.canProveEqual(op("floormod", op("add", m.e("x"), m.e("z")), m.e("y")), intImm(0, m.e("x").dtype)),
  )
  .rw(["fmod(x - fmod(x, z), y)", "fmod(fmod(x, z) - x, y)"], "0", (m, ctx) => {
    const [y, z] = [m.e("y"), m.e("z")];
    const zero = intImm(0, y.dtype);
    return ctx.canProveEqual(op("sub", y, z), zero) || ctx.canProveEqual(op("add", y, z), zero);
  })
  .rw("fmod(x * z * c1 + y, z * c1)", "fmod(y, z * c1)", (m, ctx) => ctx.bound(op("mul", m.e("z"), m.e("c1"))).min >= 0)
  .rw("fmod(x, c1)", remainderByFacts)
  .in("uint")
  .rw("fmod(x, x)", "0")
  .rw("fmod(x * c1, c2)", "0", (m) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0 && powerOfTwoDivisor(m, "c2"))
  .rw("fmod(x, c2)", (m, ctx) => {
    if (!powerOfTwoDivisor(m, "c2")) return undefined;
    const mod = ctx.modular(m.e("x"));
    return mod.coeff % c(m, "c2") === 0 ? intImm(floorModInt(mod.base, c(m, "c2")), m.e("x").dtype) : undefined;
  })
  .in("uintAsIndex")
  .rw("fmod(x * c1, c2)", "0", (m) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0)
  .rw("fmod(x, c2)", (m, ctx) => {
    const mod = ctx.modular(m.e("x"));
    return c(m, "c2") > 0 && mod.coeff % c(m, "c2") === 0 ? intImm(floorModInt(mod.base, c(m, "c2")), m.e("x").dtype) : undefined;
  }).rules;

const nonNeg = (ctx: RuleContext, e: PrimExpr): boolean => ctx.bound(e).min >= 0;
/** c1 ≥ 0 a multiple of c2 > 0, and the named parts non-negative (truncation is then flooring). */
const exactParts =
  (...names: string[]) =>
  (m: Match, ctx: RuleContext): boolean =>
    c(m, "c1") >= 0 && c(m, "c2") > 0 && c(m, "c1") % c(m, "c2") === 0 && names.every((n) => nonNeg(ctx, partOf(m, n)));

/** A named part of a match: a bound name, or a sum/difference of two (`y+z`, `z-y`). */
function partOf(m: Match, name: string): PrimExpr {
  const sum = /^(\w+)([+-])(\w+)$/.exec(name);
  if (sum === null) return m.e(name);
  return op(sum[2] === "+" ? "add" : "sub", m.e(sum[1]!), m.e(sum[3]!));
}

/** Truncating division: TVM's rules, each guarded by the signs that make truncation flooring. */
export const DIV_RULES = rules()
  .in("vector")
  .rw("tdiv(bcast(x, lanes), bcast(y, lanes))", "bcast(tdiv(x, y), lanes)")
  .rw(
    "tdiv(ramp(b1, c1, lanes), bcast(c2, lanes))",
    "ramp(tdiv(b1, c2), tdiv(c1, c2), lanes)",
    (m, ctx) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0 && lanesNonNegative(m, ctx),
  )
  .rw("tdiv(ramp(b1, c1, lanes), bcast(c2, lanes))", rampDivMod("div", true))
  .in("index")
  .rw("tdiv(tdiv(x, c1), c2)", "tdiv(x, c1 * c2)", (m) => c(m, "c1") > 0 && c(m, "c2") > 0)
  .rw("tdiv(tdiv(x, c1) + c2, c3)", "tdiv(x + c1 * c2, c1 * c3)", (m, ctx) => c(m, "c1") > 0 && c(m, "c2") >= 0 && c(m, "c3") > 0 && nonNeg(ctx, m.e("x")))
  .rw("tdiv(x * c1, c2)", (m) => {
    const [c1, c2] = [c(m, "c1"), c(m, "c2")];
    if (!(c1 > 0 && c2 > 0)) return undefined;
    if (c1 % c2 === 0) return op("mul", m.e("x"), c1 / c2);
    if (c2 % c1 === 0) return op("div", m.e("x"), c2 / c1);
    return undefined;
  })
  .rw("tdiv(x, x)", "1")
  .rw(["tdiv(x * c1, x)", "tdiv(c1 * x, x)"], "c1")
  .rw("tdiv(x * c1 + y, c2)", "x * tdiv(c1, c2) + tdiv(y, c2)", exactParts("x", "y"))
  .rw("tdiv(min(x * c1, y), c2)", "min(x * tdiv(c1, c2), tdiv(y, c2))", exactParts("x", "y"))
  .rw("tdiv(max(x * c1, y), c2)", "max(x * tdiv(c1, c2), tdiv(y, c2))", exactParts("x", "y"))
  .rw("tdiv(y + x * c1, c2)", "tdiv(y, c2) + x * tdiv(c1, c2)", exactParts("x", "y"))
  .rw("tdiv(min(y, x * c1), c2)", "min(tdiv(y, c2), x * tdiv(c1, c2))", exactParts("x", "y"))
  .rw("tdiv(max(y, x * c1), c2)", "max(tdiv(y, c2), x * tdiv(c1, c2))", exactParts("x", "y"))
  .rw("tdiv(x * c1 + y + z, c2)", "x * tdiv(c1, c2) + tdiv(y + z, c2)", exactParts("x", "y+z"))
  .rw("tdiv(x * c1 - y + z, c2)", "x * tdiv(c1, c2) + tdiv(z - y, c2)", exactParts("x", "z-y"))
  .rw("tdiv(x * c1 + y - z, c2)", "x * tdiv(c1, c2) + tdiv(y - z, c2)", exactParts("x", "y-z"))
  .rw("tdiv(y + x * c1 + z, c2)", "x * tdiv(c1, c2) + tdiv(y + z, c2)", (m, ctx) => c(m, "c1") > 0 && exactParts("x", "y+z")(m, ctx))
  .rw("tdiv(x + c1, c2)", "tdiv(x, c2) + tdiv(c1, c2)", (m, ctx) => c(m, "c1") > 0 && exactParts("x")(m, ctx))
  .rw(["tdiv(x + y, x)", "tdiv(y + x, x)"], "tdiv(y, x) + 1", (m, ctx) => nonNeg(ctx, m.e("x")) && nonNeg(ctx, m.e("y")))
  .rw(
    ["tdiv((x + y) + z, x)", "tdiv((y + x) + z, x)", "tdiv(y + (z + x), x)", "tdiv(y + (x + z), x)"],
    "tdiv(y + z, x) + 1",
    (m, ctx) => nonNeg(ctx, m.e("x")) && nonNeg(ctx, partOf(m, "y+z")),
  )
  .rw(["tdiv(x * y, y)", "tdiv(y * x, y)"], "x", (m, ctx) => nonNeg(ctx, m.e("x")) && nonNeg(ctx, m.e("y")))
  .rw(["tdiv(x * z + y, z)", "tdiv(z * x + y, z)"], "x + tdiv(y, z)", (m, ctx) => ["x", "y", "z"].every((n) => nonNeg(ctx, m.e(n))))
  .rw(["tdiv(y + x * z, z)", "tdiv(y + z * x, z)"], "tdiv(y, z) + x", (m, ctx) => ["x", "y", "z"].every((n) => nonNeg(ctx, m.e(n)))).rules;

export const MOD_RULES = rules()
  .in("vector")
  .rw("tmod(bcast(x, lanes), bcast(y, lanes))", "bcast(tmod(x, y), lanes)")
  .rw(
    "tmod(ramp(b1, c1, lanes), bcast(c2, lanes))",
    "bcast(tmod(b1, c2), lanes)",
    (m, ctx) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0 && lanesNonNegative(m, ctx),
  )
  .rw("tmod(ramp(b1, c1, lanes), bcast(c2, lanes))", rampDivMod("mod", true))
  .in("index")
  .rw("tmod(x * c1, c2)", "0", (m) => c(m, "c2") !== 0 && c(m, "c1") % c(m, "c2") === 0)
  .rw(
    "tmod(x * c1 + y, c2)",
    "tmod(y, c2)",
    (m, ctx) => c(m, "c2") > 0 && c(m, "c1") % c(m, "c2") === 0 && nonNeg(ctx, op("mul", m.e("x"), m.e("c1"))) && nonNeg(ctx, m.e("y")),
  )
  .rw("tmod(x + c1, c2)", "tmod(x, c2)", (m, ctx) => c(m, "c2") > 0 && c(m, "c1") >= 0 && c(m, "c1") % c(m, "c2") === 0 && nonNeg(ctx, m.e("x")))
  .rw(
    "tmod(x + y * c1, c2)",
    "tmod(x, c2)",
    (m, ctx) => c(m, "c2") > 0 && c(m, "c1") % c(m, "c2") === 0 && nonNeg(ctx, m.e("x")) && nonNeg(ctx, op("mul", m.e("y"), m.e("c1"))),
  )
  // The sign of a truncating remainder is the dividend's: the divisor's sign does not matter.
  .rec("tmod(x, c1)", (m) => (c(m, "c1") < 0 ? op("mod", m.e("x"), intImm(-c(m, "c1"), m.e("c1").dtype)) : undefined))
  .rw("tmod(x, c1)", (m, ctx) => {
    const c1 = c(m, "c1");
    const x = m.e("x");
    const mod = ctx.modular(x);
    if (c1 > 0 && mod.coeff % c1 === 0 && nonNeg(ctx, x)) return intImm(floorModInt(mod.base, c1), x.dtype);
    return undefined;
  }).rules;
