/**
 * `allowUintAsIndex` (TVM's `allow_uint_as_index`): inside the scope unsigned index arithmetic is
 * asserted not to wrap, and the TVM-side simplifiers use the index rules on it. Soundness is
 * judged under that assertion: points where an unsigned value of the input leaves its range say
 * nothing; the result is evaluated as code would run it, with unsigned wrap-around.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Analyzer, allowUintAsIndex, uintAsIndexAllowed } from "../../src/arith/index.js";
import { type BinaryOp, type PrimExpr, binary, cast, intImm, variable } from "../../src/expr.js";
import { range } from "../../src/stmt.js";
import { type ExactEnv, evalExact } from "./exactEval.js";
import { show } from "./exprTestUtils.js";

const RUNS = { numRuns: Number(process.env["ARITH_RUNS"] ?? 300) };
const TIMEOUT = { timeout: Math.max(60_000, RUNS.numRuns * 100) };

const u = (v: number): PrimExpr => intImm(v, "uint32");
const p = variable("p", "uint32");
const q = variable("q", "uint32");
const i = variable("i", "int32");

function analyzer(): Analyzer {
  const an = new Analyzer();
  an.bind(p, range(u(0), u(65)));
  an.bind(i, range(0, 32));
  return an;
}

/** Inside the scope for `f` only. */
function allowing<T>(f: () => T): T {
  const exit = allowUintAsIndex();
  try {
    return f();
  } finally {
    exit();
  }
}

describe("allowUintAsIndex", () => {
  it("proves a swizzle-style bit of a uint32 offset only inside the scope, and scopes nest", () => {
    const an = analyzer();
    // Below 512 whatever i is: the bit is q * 8's lowest, always 0.
    const low = cast("uint32", binary("add", binary("mul", binary("floormod", i, 8), 64), binary("floordiv", i, 8)));
    const offset = binary("add", binary("mul", q, u(4096)), low);
    const bit = binary("floormod", binary("floordiv", offset, u(512)), u(2));
    const wrapping = binary("floormod", binary("mul", q, u(12)), u(12));
    expect(an.tvmCanProveEqual(bit, u(0))).toBe(false);
    expect(an.tvmCanProveEqual(wrapping, u(0))).toBe(false);
    const outer = allowUintAsIndex();
    const inner = allowUintAsIndex();
    expect(an.tvmCanProveEqual(wrapping, u(0))).toBe(true);
    inner();
    inner();
    expect(uintAsIndexAllowed()).toBe(true);
    expect(an.tvmCanProveEqual(bit, u(0))).toBe(true);
    outer();
    expect(uintAsIndexAllowed()).toBe(false);
    expect(an.tvmCanProveEqual(wrapping, u(0))).toBe(false);
    // Lowering's simplifier never assumes it.
    expect(allowing(() => show(an.simplify(wrapping)))).toBe("q * 12 % 12");
  });

  const OPS: readonly BinaryOp[] = ["add", "sub", "mul", "min", "max"];
  const DIVS: readonly BinaryOp[] = ["floordiv", "floormod", "div", "mod"];
  const leaf = fc.oneof(fc.constantFrom<PrimExpr>(p, q, cast("uint32", i), cast("uint32", binary("mul", i, 64))), fc.integer({ min: 0, max: 600 }).map(u));
  const expr = fc.letrec<{ e: PrimExpr }>((tie) => ({
    e: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.tuple(fc.constantFrom(...OPS), tie("e"), tie("e")).map(([op, a, b]) => binary(op, a, b)),
      fc.tuple(tie("e"), fc.constantFrom(2, 12, 64, 4096)).map(([a, c]) => binary("mul", a, u(c))),
      fc.tuple(fc.constantFrom(...DIVS), tie("e"), fc.constantFrom(1, 2, 3, 8, 12, 32, 512)).map(([op, a, c]) => binary(op, a, u(c))),
    ),
  })).e;
  const point = fc
    .tuple(
      fc.bigInt({ min: 0n, max: 64n }),
      fc.oneof(fc.bigInt({ min: 0n, max: 100n }), fc.bigInt({ min: 0n, max: 1n << 20n })),
      fc.bigInt({ min: 0n, max: 31n }),
    )
    .map(
      ([pv, qv, iv]): ExactEnv =>
        new Map([
          [p, pv],
          [q, qv],
          [i, iv],
        ]),
    );

  it("keeps every value where no unsigned value wraps (rewrite, canonical, pipeline and proofs)", TIMEOUT, () => {
    const an = analyzer();
    fc.assert(
      fc.property(expr, fc.array(point, { minLength: 6, maxLength: 6 }), (e, ps) =>
        allowing(() => {
          const first = ps.map((pt) => evalExact(e, pt, true, true)).find((v) => v !== undefined);
          const claimed = first !== undefined && an.tvmCanProveEqual(e, u(Number(first)));
          for (const s of [an.rewriteSimplify(e), an.canonicalSimplify(e), an.tvmSimplify(e)]) {
            for (const pt of ps) {
              const before = evalExact(e, pt, true, true);
              if (before === undefined) continue;
              // The result runs with real unsigned arithmetic: its own intermediates may wrap.
              expect(evalExact(s, pt, false), `${show(e)}  ~>  ${show(s)}`).toBe(before);
              if (claimed) expect(before, `tvmCanProveEqual(${show(e)}, ${first})`).toBe(first);
            }
          }
        }),
      ),
      RUNS,
    );
  });
});
