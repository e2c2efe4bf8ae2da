/**
 * TVM's rewrite rules for `min` and `max`, in its order. Min and max mirror each other: `mirror`
 * swaps them (and which constant is the smaller) where a rule's direction depends on it.
 */
import { type PrimExpr, intImm } from "../../expr.js";
import { foldingBinary } from "./folding.js";
import { type Match, type Pat, buildPattern, parsePattern } from "./pattern.js";
import { type Rule, type RuleContext, rules } from "./rules.js";

type Op = "min" | "max";

function minMaxRules(op: Op): Rule[] {
  const other: Op = op === "min" ? "max" : "min";
  const isMin = op === "min";
  /** Picks which of two candidates `op` selects, from constants: a ≤ b for min. */
  const pick = (first: string, second: string, cmp: (m: Match) => boolean) => (m: Match) => buildTemplate(cmp(m) ? first : second, m);
  const o = op;
  const p = other;
  const list = rules()
    .in("vector")
    .rw(`${o}(bcast(x, lanes), bcast(y, lanes))`, `bcast(${o}(x, y), lanes)`)
    .rw(`${o}(${o}(x, bcast(y, lanes)), bcast(z, lanes))`, `${o}(x, bcast(${o}(y, z), lanes))`)
    .in("index")
    .rw(`${o}(x, x)`, "x")
    .rw("x", (m, ctx) => byBounds(op, m.e("x"), ctx))
    .rw(
      `${o}(x + c1, x + c2)`,
      pick("x + c1", "x + c2", (m) => (isMin ? m.c("c1") < m.c("c2") : m.c("c1") > m.c("c2"))),
    )
    .rw(
      [`${o}(x + c1, x)`, `${o}(x, x + c1)`],
      pick("x + c1", "x", (m) => (isMin ? m.c("c1") < 0 : m.c("c1") > 0)),
    )
    .rw(
      `${o}(c1 - x, c2 - x)`,
      pick("c1 - x", "c2 - x", (m) => (isMin ? m.c("c1") < m.c("c2") : m.c("c1") > m.c("c2"))),
    );
  if (isMin) {
    list
      .rw(
        ["min(tdiv(x + c1, c2) * c2, x)", "min(x, tdiv(x + c1, c2) * c2)", "min(fdiv(x + c1, c2) * c2, x)", "min(x, fdiv(x + c1, c2) * c2)"],
        "x",
        (m) => m.c("c2") > 0 && m.c("c1") + 1 === m.c("c2"),
      )
      .rw(
        [
          "min(tdiv(x + c1, c2) * c2, max(x, c2))",
          "min(max(x, c2), tdiv(x + c1, c2) * c2)",
          "min(fdiv(x + c1, c2) * c2, max(x, c2))",
          "min(max(x, c2), fdiv(x + c1, c2) * c2)",
        ],
        "max(x, c2)",
        (m, ctx) => m.c("c2") > 0 && m.c("c1") + 1 === m.c("c2") && ctx.bound(m.e("x")).min >= 1,
      )
      .rw(["min(x, fdiv(x, c2) * c2)", "min(fdiv(x, c2) * c2, x)"], "fdiv(x, c2) * c2", (m) => m.c("c2") > 0)
      .rw(
        [
          "min(max(x, y), min(x, y))",
          "min(max(x, y), min(y, x))",
          "min(min(x, y), max(x, y))",
          "min(min(x, y), max(y, x))",
          "min(min(x, y), x)",
          "min(min(x, y), y)",
          "min(x, min(x, y))",
          "min(y, min(x, y))",
        ],
        "min(x, y)",
      )
      .rw(["min(max(x, y), x)", "min(max(y, x), x)", "min(x, max(x, y))", "min(x, max(y, x))"], "x");
  } else {
    list
      .rw(["max(tdiv(x + c1, c2) * c2, x)", "max(x, tdiv(x + c1, c2) * c2)"], "tdiv(x + c1, c2) * c2", (m) => m.c("c2") > 0 && m.c("c1") + 1 === m.c("c2"))
      .rw(["max(fdiv(x + c1, c2) * c2, x)", "max(x, fdiv(x + c1, c2) * c2)"], "fdiv(x + c1, c2) * c2", (m) => m.c("c2") > 0 && m.c("c1") + 1 === m.c("c2"))
      .rw(["max(fdiv(x, c2) * c2, x)", "max(x, fdiv(x, c2) * c2)"], "x", (m) => m.c("c2") > 0)
      .rw(["max(min(x, y), x)", "max(min(y, x), x)", "max(x, min(x, y))", "max(x, min(y, x))"], "x")
      .rw(
        [
          "max(min(x, y), max(x, y))",
          "max(min(x, y), max(y, x))",
          "max(max(x, y), min(x, y))",
          "max(max(x, y), min(y, x))",
          "max(max(x, y), x)",
          "max(max(x, y), y)",
          "max(x, max(x, y))",
          "max(y, max(x, y))",
        ],
        "max(x, y)",
      );
  }
  list
    .rw(`${o}(${o}(${o}(x, y), z), y)`, `${o}(${o}(x, y), z)`)
    .rw(`${o}(${o}(${o}(${o}(x, y), z), s1), y)`, `${o}(${o}(${o}(x, y), z), s1)`)
    .rw(`${o}(${o}(${o}(${o}(${o}(x, y), z), s1), s2), y)`, `${o}(${o}(${o}(${o}(x, y), z), s1), s2)`)
    .rw([`${o}(${p}(x, y), ${p}(x, z))`, `${o}(${p}(x, y), ${p}(z, x))`, `${o}(${p}(y, x), ${p}(x, z))`, `${o}(${p}(y, x), ${p}(z, x))`], `${p}(${o}(y, z), x)`)
    .rw([`${o}(${o}(x, y), ${o}(x, z))`, `${o}(${o}(x, y), ${o}(z, x))`, `${o}(${o}(y, x), ${o}(x, z))`, `${o}(${o}(y, x), ${o}(z, x))`], `${o}(${o}(y, z), x)`)
    .rw([`${o}(y + x, z + x)`, `${o}(y + x, x + z)`, `${o}(x + y, x + z)`, `${o}(x + y, z + x)`], `${o}(y, z) + x`)
    .rw(`${o}(y - x, z - x)`, `${o}(y, z) - x`)
    .rw(`${o}(x - y, x - z)`, `x - ${p}(y, z)`)
    .rw(`${o}(${o}(x, c1), c2)`, `${o}(x, ${o}(c1, c2))`)
    .rw(`${o}(tdiv(x, c1), tdiv(y, c1))`, (m) => buildTemplate(m.c("c1") > 0 ? `tdiv(${o}(x, y), c1)` : `tdiv(${p}(x, y), c1)`, m))
    .rw(`${o}(fdiv(x, c1), fdiv(y, c1))`, (m) => buildTemplate(m.c("c1") > 0 ? `fdiv(${o}(x, y), c1)` : `fdiv(${p}(x, y), c1)`, m))
    .rw(`${o}(x * c1, y * c1)`, (m) => buildTemplate(m.c("c1") > 0 ? `${o}(x, y) * c1` : `${p}(x, y) * c1`, m))
    .rw(`${o}(x * c1, c2)`, (m) => scaledConstant(op, m))
    .rec(`${o}(${o}(x, c1), y)`, `${o}(${o}(x, y), c1)`)
    .rec(`${o}(c1 - x, c2)`, `c1 - ${p}(x, c1 - c2)`, (m) => m.c("c2") !== 0)
    .in("any")
    .rw(`${o}(select(x, y, z), select(x, s1, s2))`, `select(x, ${o}(y, s1), ${o}(z, s2))`);
  return list.rules;
}

/** `min(a, b)` is a when a's bounds lie below b's (and max the other way round). */
function byBounds(op: Op, e: PrimExpr, ctx: RuleContext): PrimExpr | undefined {
  if (e.kind !== "Binary") return undefined;
  const [a, b] = [ctx.bound(e.a), ctx.bound(e.b)];
  if (op === "min") {
    if (a.max <= b.min) return e.a;
    if (b.max <= a.min) return e.b;
  } else {
    if (a.min >= b.max) return e.a;
    if (b.min >= a.max) return e.b;
  }
  return undefined;
}

/** `min(x * c1, c2)` with c1 dividing c2 is `min(x, c2 / c1) * c1` (max for negative c1). */
function scaledConstant(op: Op, m: Match): PrimExpr | undefined {
  const [c1, c2] = [m.c("c1"), m.c("c2")];
  const dt = m.e("c1").dtype;
  if (c1 === 0) return (op === "min" ? c2 < 0 : c2 > 0) ? m.e("c2") : m.e("c1");
  if (c2 % c1 !== 0) return undefined;
  const inner: Op = c1 > 0 ? op : op === "min" ? "max" : "min";
  return foldingBinary("mul", foldingBinary(inner, m.e("x"), intImm(c2 / c1, dt)), intImm(c1, dt));
}

const templates = new Map<string, Pat>();

/** Builds a result chosen at match time (its pattern parsed once). */
export function buildTemplate(template: string, m: Match): PrimExpr {
  let p = templates.get(template);
  if (p === undefined) {
    p = parsePattern(template);
    templates.set(template, p);
  }
  return buildPattern(p, m, m.e("x").dtype);
}

export const MIN_RULES = minMaxRules("min");
export const MAX_RULES = minMaxRules("max");
