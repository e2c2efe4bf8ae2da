/** asRamp: sums of ramps and broadcasts read as one ramp, lane for lane the same values. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PrimExpr, add, asRamp, broadcast, evalIntExpr, floatImm, intImm, ramp, variable } from "../../src/index.js";

const x = variable("x");
const y = variable("y");

/** Lane `lane` of a vector integer expression of ramps, broadcasts and sums (the forms asRamp reads). */
function laneValue(e: PrimExpr, lane: number, env: ReadonlyMap<typeof x, number>): number {
  switch (e.kind) {
    case "Ramp":
      return evalIntExpr(e.base, env)! + lane * evalIntExpr(e.stride, env)!;
    case "Broadcast":
      return evalIntExpr(e.value, env)!;
    case "Binary":
      if (e.op === "add") return laneValue(e.a, lane, env) + laneValue(e.b, lane, env);
      break;
    default:
      break;
  }
  throw new Error(`laneValue: unexpected ${e.kind}`);
}

const scalar = fc.oneof(
  fc.integer({ min: -50, max: 50 }).map((v) => intImm(v) as PrimExpr),
  fc.constantFrom<PrimExpr>(x, y, add(x, intImm(3))),
);

/** A vector index of `lanes` lanes: a ramp (constant stride) or a broadcast, or a sum of two. */
const vectorOf = (lanes: number): fc.Arbitrary<PrimExpr> =>
  fc.letrec<{ v: PrimExpr }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      fc.tuple(scalar, fc.integer({ min: -3, max: 3 })).map(([base, stride]) => ramp(base, intImm(stride), lanes) as PrimExpr),
      scalar.map((v) => broadcast(v, lanes) as PrimExpr),
      fc.tuple(tie("v"), tie("v")).map(([a, b]) => add(a, b)),
    ),
  })).v;

describe("asRamp", () => {
  it("reads a sum of ramps and broadcasts as one ramp with the same value in every lane", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }).chain((lanes) => fc.tuple(fc.constant(lanes), vectorOf(lanes))),
        fc.integer({ min: -20, max: 20 }),
        fc.integer({ min: -20, max: 20 }),
        ([lanes, e], xv, yv) => {
          const env = new Map([
            [x, xv],
            [y, yv],
          ]);
          const r = asRamp(e);
          expect(r).toBeDefined();
          expect(r!.lanes).toBe(lanes);
          expect(r!.stride.kind).toBe("IntImm");
          for (let lane = 0; lane < lanes; lane++) expect(laneValue(r!, lane, env)).toBe(laneValue(e, lane, env));
        },
      ),
    );
  });

  it("is undefined for a scalar, a ramp of symbolic stride, and a float broadcast", () => {
    expect(asRamp(x)).toBeUndefined();
    expect(asRamp(ramp(x, y, 4))).toBeUndefined();
    expect(asRamp(broadcast(floatImm(1.5), 4))).toBeUndefined();
    expect(asRamp(add(ramp(x, 1, 4), broadcast(y, 4)))).toBeDefined();
  });
});
