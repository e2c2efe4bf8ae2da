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
import { Schedule } from "../src/index.js";
import type { ScheduleState } from "../src/state/schedule-state.js";
import { TreeIndex } from "../src/state/tree-index.js";
import { applyStageStep, stageStep, threeStageWorkload } from "./random-stage-steps.js";
import { Analyzer } from "@tessera/ir";

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
      fc.property(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 2, max: 6 }), fc.array(stageStep, { minLength: 1, maxLength: 6 }), (n, m, steps) => {
        const sch = new Schedule(parsePrimFunc(threeStageWorkload(n, m)));
        checkScopes(sch);
        for (const s of steps) {
          applyStageStep(sch, s);
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
          const func = new Schedule(parsePrimFunc(threeStageWorkload(n, m))).func;
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
