/**
 * Facts remembered across schedule states by block realize and the bounds of the loops above it
 * (LoopNestMemo): the stage-pipeline check's relaxed regions and the affine-binding property. On
 * random schedules — splits, cache stages and compute-at moves drawn by fast-check — every
 * remembered fact must equal the one worked out afresh, and the checks must give the same answers
 * with and without the memo; a nest whose loops change bounds under the same realize must not
 * reuse the old facts.
 */
import { type For, IRMutator, type IntervalSet, type Stmt, intImm, parsePrimFunc, sameExprStructure } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrimitiveContext } from "../src/context.js";
import { BlockScope } from "../src/analysis/scope.js";
import { affineBindingMemo, hasAffineBinding } from "../src/analysis/block-properties.js";
import { isStagePipeline, relaxedRegion, relaxedRegionMemo, relaxedRegionWithoutFacts } from "../src/analysis/stage-pipeline.js";
import { Schedule, ScheduleError } from "../src/index.js";
import type { ScheduleState } from "../src/state/schedule-state.js";
import { TreeIndex } from "../src/state/tree-index.js";
import { Analyzer } from "@tessera/ir";

const workload = (n: number, m: number): string => `@T.prim_func
def main(A: T.Buffer((${n}, ${m}), "int32"), D: T.Buffer((${n}, ${m}), "int32")):
    B = T.alloc_buffer((${n}, ${m}), "int32")
    C = T.alloc_buffer((${n}, ${m}), "int32")
    for i, j in T.grid(${n}, ${m}):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + 7
    for i, j, k in T.grid(${n}, ${m}, ${m}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + B[vi, vk] * (vj + 1)
    for i, j in T.grid(${n}, ${m}):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * 2 + A[vi, vj]
`;

type Step =
  | { kind: "split"; block: number; loop: number; factor: number }
  | { kind: "cacheRead"; block: number }
  | { kind: "move"; block: number; target: number; loop: number; reverse: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("split" as const), block: fc.nat(), loop: fc.nat(), factor: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("cacheRead" as const), block: fc.nat() }),
  fc.record({ kind: fc.constant("move" as const), block: fc.nat(), target: fc.nat(), loop: fc.nat(), reverse: fc.boolean() }),
);

function applyStep(sch: Schedule, s: Step): void {
  const blocks = sch.getChildBlocks(sch.getBlock("root"));
  const pick = <T>(xs: readonly T[], k: number): T | undefined => (xs.length === 0 ? undefined : xs[k % xs.length]);
  const block = pick(blocks, s.block)!;
  if (s.kind === "split") {
    const loop = pick(sch.getLoops(block), s.loop);
    if (loop !== undefined) sch.split(loop, [null, s.factor]);
  } else if (s.kind === "cacheRead") {
    sch.cacheRead(block, 0, "shared");
  } else {
    const loop = pick(sch.getLoops(pick(blocks, s.target)!), s.loop);
    if (loop === undefined) return;
    if (s.reverse) sch.reverseComputeAt(block, loop);
    else sch.computeAt(block, loop);
  }
}

const sameInterval = (a: IntervalSet, b: IntervalSet): boolean =>
  a.min.kind === b.min.kind &&
  a.max.kind === b.max.kind &&
  (a.min.kind === "NegInf" || sameExprStructure(a.min as never, b.min as never)) &&
  (a.max.kind === "PosInf" || sameExprStructure(a.max as never, b.max as never));

/** Compares the cached and the fresh relaxed regions and stage-pipeline answers of every scope. */
function checkScopes(sch: Schedule): void {
  const index = new PrimitiveContext((sch as unknown as { state: ScheduleState }).state).index;
  for (const blk of index.blocks) {
    const scope = new BlockScope(index, blk);
    expect(isStagePipeline(scope)).toBe(relaxedRegionMemo.bypassed(() => isStagePipeline(scope)));
    expect(hasAffineBinding(index, blk)).toBe(affineBindingMemo.bypassed(() => hasAffineBinding(index, blk)));
    for (const child of scope.children) {
      for (const r of [...child.node.reads, ...child.node.writes]) {
        const cached = relaxedRegionWithoutFacts(index, child, r.region, new Analyzer());
        const fresh = relaxedRegion(index, child, r.region, new Analyzer());
        expect(cached.length).toBe(fresh.length);
        cached.forEach((c, k) => expect(sameInterval(c, fresh[k]!)).toBe(true));
      }
    }
  }
}

describe("facts remembered by loop nest", () => {
  it("agrees with the uncached computation on random schedules", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 2, max: 6 }), fc.array(step, { minLength: 1, maxLength: 6 }), (n, m, steps) => {
        const sch = new Schedule(parsePrimFunc(workload(n, m)));
        checkScopes(sch);
        for (const s of steps) {
          try {
            applyStep(sch, s);
          } catch (err) {
            if (!(err instanceof ScheduleError)) throw err;
          }
          checkScopes(sch);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("tells loop nests apart that keep a block realize but change a loop's bounds", () => {
    /** Gives the loops the extents in `extents` (in program order), keeping every block realize object. */
    class Reextent extends IRMutator {
      private next = 0;
      constructor(private readonly extents: readonly number[]) {
        super();
      }
      override visitFor(s: For): Stmt {
        const extent = this.extents[this.next++ % this.extents.length]!;
        const out = super.visitFor(s) as For;
        return extent === 0 ? out : { ...out, extent: intImm(extent, s.extent.dtype) };
      }
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 2, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 1, maxLength: 7 }),
        (n, m, extents) => {
          const func = new Schedule(parsePrimFunc(workload(n, m))).func;
          for (const f of [func, { ...func, body: new Reextent(extents).visitStmt(func.body) }]) {
            const index = new TreeIndex(f);
            for (const child of index.blocks) {
              expect(hasAffineBinding(index, child)).toBe(affineBindingMemo.bypassed(() => hasAffineBinding(index, child)));
              for (const r of [...child.node.reads, ...child.node.writes]) {
                const cached = relaxedRegionWithoutFacts(index, child, r.region, new Analyzer());
                const fresh = relaxedRegion(index, child, r.region, new Analyzer());
                cached.forEach((c, k) => expect(sameInterval(c, fresh[k]!)).toBe(true));
              }
            }
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
