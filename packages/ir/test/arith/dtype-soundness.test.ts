/**
 * Soundness of the analyzer under each dtype's own semantics: random int32, int64, uint32 and
 * bool expressions (unsigned wrap-around, int64 extremes, narrowing casts, shifts and bitwise
 * ops), simplified and evaluated on both sides with the exact reference evaluator (BigInt).
 *
 * ARITH_RUNS sets the run count (10^4 for the recorded run; the default keeps the suite quick).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Analyzer } from "../../src/arith/index.js";
import { type BinaryOp, type PrimExpr, type Var, binary, broadcast, call, cast, intImm, not, ramp, select, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { type ExactEnv, dtypeMax, dtypeMin, evalExact } from "./exactEval.js";
import { show } from "./exprTestUtils.js";
import { unlessZeroDivisor } from "./zeroDivisor.js";

const PROVER_COUNTEREXAMPLE_PATH =
  "7786:0:0:0:0:0:0:0:0:0:0:0:0:0:1:0:0:0:0:0:2:7:2:4:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:7:8:8:8:7:7:7:7";
const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 300) };
/** Long hunts (ARITH_RUNS=10000) outlast vitest's default timeout on a loaded machine. */
const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 100) };

type IntDType = "int32" | "int64" | "uint32";

/** A variable, its analyzer range (inclusive, or none) and the values points draw for it. */
interface VarSpec {
  readonly v: Var;
  readonly bound?: readonly [number, number];
  readonly values: fc.Arbitrary<bigint>;
}

function extremes(dt: IntDType): fc.Arbitrary<bigint> {
  const lo = dtypeMin(dt);
  const hi = dtypeMax(dt);
  return fc.oneof(
    fc.bigInt({ min: -20n > lo ? -20n : lo, max: 20n }),
    fc.constantFrom(lo, lo + 1n, hi, hi - 1n, hi / 2n, hi / 2n + 1n, 1n << 29n),
    fc.bigInt({ min: lo, max: hi }),
  );
}

function boundedVar(name: string, dt: IntDType, lo: number, hi: number): VarSpec {
  return { v: variable(name, dt), bound: [lo, hi], values: fc.bigInt({ min: BigInt(lo), max: BigInt(hi) }) };
}

const VARS: Record<IntDType, readonly VarSpec[]> = {
  int32: [boundedVar("i", "int32", -8, 8), boundedVar("j", "int32", 0, 100), { v: variable("n", "int32"), values: extremes("int32") }],
  int64: [boundedVar("k", "int64", 0, 1000), { v: variable("m", "int64"), values: extremes("int64") }],
  uint32: [boundedVar("p", "uint32", 0, 64), { v: variable("u", "uint32"), values: extremes("uint32") }],
};
const ALL_VARS = Object.values(VARS).flat();

const ARITH: readonly BinaryOp[] = ["add", "sub", "mul", "min", "max"];
const DIVISION: readonly BinaryOp[] = ["div", "mod", "floordiv", "floormod"];
const COMPARE: readonly BinaryOp[] = ["eq", "ne", "lt", "le", "gt", "ge"];
const BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"] as const;

function constants(dt: IntDType): fc.Arbitrary<PrimExpr> {
  const small = dt === "uint32" ? fc.integer({ min: 0, max: 20 }) : fc.integer({ min: -20, max: 20 });
  const wide =
    dt === "uint32" ? fc.constantFrom(2 ** 31, 2 ** 32 - 1) : dt === "int32" ? fc.constantFrom(2 ** 31 - 1, -(2 ** 31)) : fc.constantFrom(2 ** 40, -(2 ** 40));
  return fc.oneof({ arbitrary: small, weight: 6 }, { arbitrary: wide, weight: 1 }).map((c) => intImm(c, dt));
}

function divisors(dt: IntDType): fc.Arbitrary<PrimExpr> {
  const values = dt === "uint32" ? [1, 2, 3, 4, 8, 12, 16] : [-6, -4, -3, -2, 1, 2, 3, 4, 8, 12];
  return fc.constantFrom(...values).map((c) => intImm(c, dt));
}

type Arbs = Record<IntDType | "bool", PrimExpr>;

const exprs = fc.letrec<Arbs>((tie) => {
  const intOf = (dt: IntDType): fc.Arbitrary<PrimExpr> => {
    const self = tie(dt);
    const others = (["int32", "int64", "uint32"] as const).filter((d) => d !== dt);
    return fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.constantFrom(...VARS[dt].map((s) => s.v as PrimExpr)),
      constants(dt),
      fc.tuple(fc.constantFrom(...ARITH), self, self).map(([op, a, b]) => binary(op, a, b)),
      fc.tuple(self, constants(dt)).map(([a, c]) => binary("mul", a, c)),
      fc.tuple(fc.constantFrom(...DIVISION), self, divisors(dt)).map(([op, a, c]) => binary(op, a, c)),
      fc.tuple(fc.constantFrom(...DIVISION), self, self).map(([op, a, b]) => binary(op, a, b)),
      fc.tuple(tie("bool"), self, self).map(([c, a, b]) => select(c, a, b)),
      fc.tuple(fc.constantFrom(...others), fc.constant(0)).chain(([src]) => tie(src).map((a) => cast(dt, a))),
      fc.tuple(fc.constantFrom(...BITWISE), self, self).map(([op, a, b]) => call(dt, op, [a, b])),
      fc.tuple(fc.constantFrom("shift_left", "shift_right"), self, fc.integer({ min: 0, max: 5 })).map(([op, a, s]) => call(dt, op, [a, intImm(s, dt)])),
    );
  };
  return {
    int32: intOf("int32"),
    int64: intOf("int64"),
    uint32: intOf("uint32"),
    bool: fc.oneof(
      { depthSize: "small" },
      fc
        .constantFrom<IntDType>("int32", "int64", "uint32")
        .chain((dt) => fc.tuple(fc.constantFrom(...COMPARE), tie(dt), tie(dt)))
        .map(([op, a, b]) => binary(op, a, b)),
      fc.tuple(fc.constantFrom<BinaryOp>("and", "or"), tie("bool"), tie("bool")).map(([op, a, b]) => binary(op, a, b)),
      tie("bool").map((a) => not(a)),
    ),
  };
});

const anyExpr = fc.oneof(exprs.int32, exprs.int64, exprs.uint32, exprs.bool);

const point: fc.Arbitrary<ExactEnv> = fc.tuple(...ALL_VARS.map((s) => s.values)).map((values) => new Map(ALL_VARS.map((s, i) => [s.v, values[i]!])));
const points = fc.array(point, { minLength: 6, maxLength: 6 });

/** Is a divisor zero (or without a value) at every one of the points? */
const zeroAt =
  (ps: readonly ExactEnv[]) =>
  (d: PrimExpr): boolean =>
    ps.every((p) => {
      const v = evalExact(d, p, true);
      return v === undefined || v === 0n;
    });

function boundAnalyzer(): Analyzer {
  const an = new Analyzer();
  for (const s of ALL_VARS) if (s.bound !== undefined) an.bind(s.v, range(intImm(s.bound[0], s.v.dtype), intImm(s.bound[1] - s.bound[0] + 1, s.v.dtype)));
  return an;
}

describe("simplification under each dtype's semantics", () => {
  const simplifiers: [string, (an: Analyzer, e: PrimExpr) => PrimExpr][] = [
    ["simplify keeps every value (uint32 wrap-around, int64 extremes, narrowing casts, bit operations)", (an, e) => an.simplify(e)],
    ["rewriteSimplify (TVM's rewrite rules) keeps every value too", (an, e) => an.rewriteSimplify(e)],
    ["canonicalSimplify (TVM's canonical forms) keeps every value too", (an, e) => an.canonicalSimplify(e)],
  ];
  for (const [title, simplifyWith] of simplifiers) {
    it(title, TIMEOUT, () => {
      const an = boundAnalyzer();
      fc.assert(
        fc.property(anyExpr, points, (e, ps) => {
          const s = unlessZeroDivisor(e, zeroAt(ps), () => simplifyWith(an, e));
          if (s === undefined) return;
          for (const p of ps) {
            const before = evalExact(e, p, true);
            if (before === undefined) continue;
            expect(evalExact(s, p, false), `${show(e)}  ~>  ${show(s)}`).toBe(before);
          }
        }),
        RUNS,
      );
    });
  }

  const provers: [string, "linear" | "tvm"][] = [
    ["canProve and canProveEqual claim nothing that fails at a point", "linear"],
    ["tvmCanProve and tvmCanProveEqual (TVM's pipeline) claim nothing that fails at a point", "tvm"],
  ];
  for (const [title, prover] of provers)
    it(title, TIMEOUT, () => {
      const an = boundAnalyzer();
      const proveEqual = (a: PrimExpr, b: PrimExpr): boolean => (prover === "tvm" ? an.tvmCanProveEqual(a, b) : an.canProveEqual(a, b));
      const prove = (c: PrimExpr): boolean => (prover === "tvm" ? an.tvmCanProve(c) : an.canProve(c));
      const claimsHold = fc.property(anyExpr, exprs.bool, points, (e, cond, ps) => {
        const first = ps.map((p) => evalExact(e, p, true)).find((v) => v !== undefined);
        const claimEqual =
          first !== undefined && e.dtype !== "bool" && unlessZeroDivisor(e, zeroAt(ps), () => proveEqual(e, intImm(Number(first), e.dtype))) === true;
        const claimTrue = unlessZeroDivisor(cond, zeroAt(ps), () => prove(cond)) === true;
        for (const p of ps) {
          const v = evalExact(e, p, true);
          if (claimEqual && v !== undefined) expect(v, `canProveEqual(${show(e)}, ${first})`).toBe(first);
          const c = evalExact(cond, p, true);
          if (claimTrue && c !== undefined) expect(c, `canProve(${show(cond)})`).toBe(1n);
        }
      });
      fc.assert(claimsHold, RUNS);
      // Found at 10⁴ runs: a Select branch whose divisor is zero only under the branch's condition
      // made the whole simplification throw DivisionByZeroError.
      if (prover === "tvm") fc.assert(claimsHold, { seed: 1971133755, path: PROVER_COUNTEREXAMPLE_PATH, endOnFailure: true });
    });

  it("bounds every value", TIMEOUT, () => {
    const an = boundAnalyzer();
    fc.assert(
      fc.property(fc.oneof(exprs.int32, exprs.uint32), points, (e, ps) => {
        const b = an.constIntBound(e);
        for (const p of ps) {
          const v = evalExact(e, p, true);
          if (v === undefined) continue;
          const n = Number(v);
          expect(n >= b.min && n <= b.max, `${show(e)} = ${n} in [${b.min}, ${b.max}]`).toBe(true);
        }
      }),
      RUNS,
    );
  });
});

/** Lane i of a vector expression, as a scalar expression. */
function laneOf(e: PrimExpr, i: number): PrimExpr {
  switch (e.kind) {
    case "Ramp":
      return binary("add", e.base, binary("mul", e.stride, intImm(i, e.stride.dtype)));
    case "Broadcast":
      return e.value;
    case "Binary":
      return binary(e.op, laneOf(e.a, i), laneOf(e.b, i));
    default:
      return e;
  }
}

describe("vector rules under lane-wise evaluation", () => {
  const [i32, j32] = [VARS.int32[0]!, VARS.int32[1]!];
  const vectorOps: readonly BinaryOp[] = ["floordiv", "floormod", "div", "mod", "add", "sub", "mul", "min", "max", "lt", "eq"];
  it("rewriteSimplify keeps every lane of ramp/broadcast arithmetic", TIMEOUT, () => {
    const an = boundAnalyzer();
    const base = fc
      .tuple(fc.constantFrom<PrimExpr>(i32.v, j32.v), fc.integer({ min: -3, max: 16 }), fc.integer({ min: -9, max: 9 }))
      .map(([v, k, r]) => binary("add", binary("mul", v, intImm(k)), intImm(r)));
    const vec = fc.tuple(base, fc.integer({ min: -4, max: 8 }), fc.constantFrom(2, 4, 5)).map(([b, s, l]) => ({ e: ramp(b, s, l), lanes: l }));
    fc.assert(
      fc.property(vec, fc.constantFrom(...vectorOps), fc.constantFrom(1, 2, 3, 4, 8, 16, 64), points, ({ e, lanes }, op, c, ps) => {
        const whole = binary(op, e, broadcast(intImm(c), lanes));
        const s = an.rewriteSimplify(whole);
        for (const p of ps) {
          for (let k = 0; k < lanes; k++) {
            const before = evalExact(laneOf(whole, k), p, true);
            if (before === undefined) continue;
            expect(evalExact(laneOf(s, k), p, false), `${show(whole)} lane ${k}`).toBe(before);
          }
        }
      }),
      RUNS,
    );
  });

  it("keeps every lane of scalable (vscale × k) ramps, for vscale = 1 … 4", TIMEOUT, () => {
    const an = boundAnalyzer();
    const base = fc
      .tuple(fc.constantFrom<PrimExpr>(i32.v, j32.v), fc.integer({ min: -3, max: 16 }), fc.integer({ min: -9, max: 9 }))
      .map(([v, k, r]) => binary("add", binary("mul", v, intImm(k)), intImm(r)));
    const scalable = fc.tuple(base, fc.integer({ min: -4, max: 8 }), fc.constantFrom(1, 2, 4)).map(([b, s, k]) => ({ e: ramp(b, s, -k), factor: k }));
    fc.assert(
      fc.property(
        scalable,
        fc.constantFrom(...vectorOps),
        fc.constantFrom(1, 2, 3, 4, 8, 16, 64),
        fc.integer({ min: 1, max: 4 }),
        points,
        ({ e, factor }, op, c, vscale, ps) => {
          const whole = binary(op, e, broadcast(intImm(c), e.lanes));
          const s = an.rewriteSimplify(whole);
          for (const p of ps) {
            for (let k = 0; k < vscale * factor; k++) {
              const before = evalExact(laneOf(whole, k), p, true);
              if (before === undefined) continue;
              expect(evalExact(laneOf(s, k), p, false), `${show(whole)} lane ${k} at vscale ${vscale}`).toBe(before);
            }
          }
        },
      ),
      RUNS,
    );
  });
});

describe("unsigned wrap-around (regressions)", () => {
  const u = variable("u", "uint32");
  it("keeps uint32 `u * 12 % 12`: the product wraps (u = 2^29 gives 2^31, and 2^31 % 12 = 8)", TIMEOUT, () => {
    const an = new Analyzer();
    const e = binary("floormod", binary("mul", u, intImm(12, "uint32")), intImm(12, "uint32"));
    expect(show(an.simplify(e))).toBe("u * 12 % 12");
    expect(an.canProveEqual(e, intImm(0, "uint32"))).toBe(false);
    expect(evalExact(e, new Map([[u, 1n << 29n]]), true)).toBe(8n);
  });

  it("still folds uint32 `u * 8 % 4` to 0: a power of two divides 2^32", TIMEOUT, () => {
    const e = binary("floormod", binary("mul", u, intImm(8, "uint32")), intImm(4, "uint32"));
    expect(show(new Analyzer().simplify(e))).toBe("0");
  });

  it("does not decide `u + 5 < 3` from unwrapped bounds", TIMEOUT, () => {
    const an = new Analyzer();
    an.bind(u, range(intImm(2 ** 32 - 3, "uint32"), intImm(3, "uint32")));
    const e = binary("lt", binary("add", u, intImm(5, "uint32")), intImm(3, "uint32"));
    expect(an.canProve(e)).toBe(false);
    expect(an.constIntBound(binary("add", u, intImm(5, "uint32")))).toEqual({ min: 0, max: 2 ** 32 - 1 });
  });
});
