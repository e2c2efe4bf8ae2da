/** Crossover of two samples of the default CUDA space: the structure of one, the knobs of the other. */
import { gemmReluAdd, vectorAdd } from "@tessera/ir";
import type { Instruction, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { categoricalsSplitting } from "../../src/mutator/sampled-annotations.js";
import { crossoverStructureAndKnobs } from "../../src/search/crossover.js";
import { launchClassOf } from "../../src/search/launch-classes.js";
import { spaceOf } from "./helpers.js";

const gemm = spaceOf(gemmReluAdd(2048).func);

function sampleTrace(seed: number, space = gemm): Trace {
  const out = replayWithPostprocs(space.ctx, space.spaces[0]!.trace, [], { seed, freshDecisions: true });
  if (!out.ok) throw new Error(out.detail);
  return out.sch.trace;
}

/** The sampling instructions before postprocessing, each with its decision and whether it decides the loop structure. */
function samplings(trace: Trace): { inst: Instruction; decision: string; structural: boolean }[] {
  const end = trace.instructions.findIndex((i) => i.kind.name === "EnterPostproc");
  const insts = end < 0 ? trace.instructions : trace.instructions.slice(0, end);
  const splitting = new Set(categoricalsSplitting(trace));
  return insts
    .filter((i) => i.kind.name.startsWith("Sample"))
    .map((inst) => ({
      inst,
      decision: JSON.stringify(trace.getDecision(inst)),
      structural: inst.kind.name !== "SampleCategorical" || splitting.has(inst),
    }));
}

describe("crossoverStructureAndKnobs", () => {
  it("takes every tile, split-factor and compute-location decision from the first parent and every other decision from the second", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }), (seedA, seedB) => {
        const a = sampleTrace(seedA);
        const b = sampleTrace(seedB);
        const child = crossoverStructureAndKnobs(a, b);
        const [sa, sb] = [samplings(a), samplings(b)];
        const knobsDiffer = sa.some((s, k) => !s.structural && s.decision !== sb[k]!.decision);
        // Nothing to exchange exactly when the knobs agree already.
        expect(child !== undefined).toBe(knobsDiffer);
        if (child === undefined) return;
        const sc = samplings(child);
        expect(sc.map((s) => s.inst.kind.name)).toEqual(sa.map((s) => s.inst.kind.name));
        sc.forEach((s, k) => expect(s.decision).toBe(s.structural ? sa[k]!.decision : sb[k]!.decision));
        expect(sa.some((s) => !s.structural)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("gives a child that replays with the postprocessors or is rejected with a reason; a valid child has its first parent's launch shape", () => {
    let valid = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: 100_000 }), (seedA, seedB) => {
        const replay = (trace: Trace) => replayWithPostprocs(gemm.ctx, trace, gemm.gen.postprocs, { seed: 1 });
        const a = replay(sampleTrace(seedA));
        const b = replay(sampleTrace(seedB));
        if (!a.ok || !b.ok) return;
        const child = crossoverStructureAndKnobs(a.sch.trace, b.sch.trace);
        if (child === undefined) return;
        const out = replay(child);
        if (!out.ok) {
          expect(out.reason.length).toBeGreaterThan(0);
          return;
        }
        valid++;
        expect(launchClassOf(out.sch)).toBe(launchClassOf(a.sch));
      }),
      { numRuns: 25 },
    );
    expect(valid).toBeGreaterThan(0);
  });

  it("crosses nothing between traces of different design spaces, or a trace with itself", () => {
    const other = spaceOf(vectorAdd(4096).func);
    const a = sampleTrace(3);
    expect(crossoverStructureAndKnobs(a, sampleTrace(5, other))).toBeUndefined();
    expect(crossoverStructureAndKnobs(sampleTrace(5, other), a)).toBeUndefined();
    expect(crossoverStructureAndKnobs(a, a)).toBeUndefined();
  });
});
