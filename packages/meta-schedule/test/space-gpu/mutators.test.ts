/** MutateTileSize and MutateGemmKnob on samples of the default CUDA space (MutateTileShape: mutate-tile-shape.test.ts). */
import { gemmReluAdd, vectorAdd } from "@tessera/ir";
import { type Instruction, RandomEngine, Schedule, type Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { GEMM_KNOB_KEYS, MutateGemmKnob, movePipelineWithFetch } from "../../src/mutator/mutate-gemm-knob.js";
import { MutateTileSize } from "../../src/mutator/mutate-tile-size.js";
import { categoricalsFeeding, categoricalsSplitting } from "../../src/mutator/sampled-annotations.js";
import {
  COOPERATIVE_FETCH,
  FETCH_THREAD_INNER,
  FETCH_VIA_REGISTERS,
  SOFTWARE_PIPELINE,
  UNROLL_EXPLICIT,
  UNROLL_IMPLICIT,
} from "../../src/schedule-utils/annotations.js";
import { spaceOf } from "./helpers.js";

const { ctx, spaces } = spaceOf(gemmReluAdd(2048).func);

function sampleTrace(seed: number): Trace {
  const out = replayWithPostprocs(ctx, spaces[0]!.trace, [], { seed, freshDecisions: true });
  if (!out.ok) throw new Error(out.detail);
  return out.sch.trace;
}

/** The sampling instructions (in order) with their decisions, up to the postprocessing mark. */
function decisions(trace: Trace): { inst: Instruction; decision: unknown }[] {
  const end = trace.instructions.findIndex((i) => i.kind.name === "EnterPostproc");
  const insts = end < 0 ? trace.instructions : trace.instructions.slice(0, end);
  return insts.filter((i) => i.kind.name.startsWith("Sample")).map((inst) => ({ inst, decision: trace.getDecision(inst) }));
}

function changed(before: Trace, after: Trace): number[] {
  const a = decisions(before);
  const b = decisions(after);
  expect(b.map((d) => d.inst.kind.name)).toEqual(a.map((d) => d.inst.kind.name));
  return a.flatMap((d, k) => (JSON.stringify(d.decision) === JSON.stringify(b[k]!.decision) ? [] : [k]));
}

describe("MutateTileSize", () => {
  it("moves a divisor between two tiles of one decision (innermost within its bound), or changes a fetch width or a sampled tile size", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 }), (sampleSeed, rngSeed) => {
        const trace = sampleTrace(sampleSeed);
        const mutated = new MutateTileSize().apply(trace, new RandomEngine(rngSeed), ctx);
        expect(mutated).toBeDefined();
        const diff = changed(trace, mutated!);
        expect(diff).toHaveLength(1);
        const before = decisions(trace)[diff[0]!]!;
        const after = decisions(mutated!)[diff[0]!]!;
        if (before.inst.kind.name === "SamplePerfectTile") {
          const [x, y] = [before.decision as number[], after.decision as number[]];
          expect(y.reduce((p, q) => p * q, 1)).toBe(x.reduce((p, q) => p * q, 1));
          expect(y.filter((t, k) => t !== x[k])).toHaveLength(2);
          expect(y.at(-1)!).toBeLessThanOrEqual(before.inst.attrs[1] as number);
        } else {
          expect([...categoricalsFeeding(trace, new Set([COOPERATIVE_FETCH])), ...categoricalsSplitting(trace)]).toContain(before.inst);
        }
      }),
      { numRuns: 25, seed: 3 },
    );
  });

  it("leaves a trace without tiles or fetches alone", () => {
    const sch = new Schedule(vectorAdd(256).func);
    const [i] = sch.getLoops(sch.getBlock("C"));
    sch.split(i, [null, 64]);
    expect(new MutateTileSize().apply(sch.trace, new RandomEngine(1), ctx)).toBeUndefined();
  });
});

/** The value (candidate) a categorical decision stands for. */
function decisionValue(trace: Trace, inst: Instruction): number {
  return (inst.attrs[0] as number[])[trace.getDecision(inst) as number]!;
}

describe("MutateGemmKnob", () => {
  it("changes one knob decision to another candidate, or switches the pipeline with the fetch path; the result replays", () => {
    const kinds = { single: 0, joint: 0 };
    for (let seed = 1; seed <= 16; seed++) {
      const trace = sampleTrace(seed);
      const mutated = new MutateGemmKnob().apply(trace, new RandomEngine(seed), ctx)!;
      const diff = changed(trace, mutated);
      expect(diff.length).toBeGreaterThan(0);
      const knobs = categoricalsFeeding(trace, GEMM_KNOB_KEYS);
      for (const k of diff) expect(knobs).toContain(decisions(trace)[k]!.inst);
      const [pipeline] = categoricalsFeeding(trace, new Set([SOFTWARE_PIPELINE]));
      const fetches = categoricalsFeeding(trace, new Set([FETCH_VIA_REGISTERS]));
      const jointKnobs = [pipeline!, ...fetches];
      const onlyJointKnobs = diff.every((k) => jointKnobs.includes(decisions(trace)[k]!.inst));
      const whole = jointKnobs.every((f) => decisionValue(mutated, f) === decisionValue(mutated, pipeline!));
      if (diff.length > 1 && onlyJointKnobs && whole) kinds.joint++;
      else {
        expect(diff).toHaveLength(1);
        kinds.single++;
      }
      const out = replayWithPostprocs(ctx, mutated, [], { seed });
      expect(out.ok).toBe(true);
    }
    expect(kinds.single).toBeGreaterThan(0);
    expect(kinds.joint).toBeGreaterThan(0);
  });

  it("covers every sampled annotation of the space the other mutators leave (the fetch thread order among them)", () => {
    // MutateTileSize moves the fetch widths, mutateUnroll the unroll budget: every other key whose
    // value a SampleCategorical feeds is a knob of MutateGemmKnob.
    const others = new Set([COOPERATIVE_FETCH, UNROLL_EXPLICIT, UNROLL_IMPLICIT]);
    const trace = sampleTrace(1);
    const fed = new Set<string>();
    for (const inst of trace.instructions) {
      if (inst.kind.name !== "Annotate" || typeof inst.attrs[0] !== "string") continue;
      const producer = trace.instructions.find((p) => p.kind.name === "SampleCategorical" && p.outputs[0] === inst.inputs[1]);
      if (producer !== undefined) fed.add(inst.attrs[0]);
    }
    expect(fed).toContain(FETCH_THREAD_INNER);
    for (const key of fed) if (!others.has(key)) expect(GEMM_KNOB_KEYS, key).toContain(key);
  });

  it("moves the thread order of a staged fetch, leaving the other decisions", () => {
    let moved = 0;
    for (let seed = 1; seed <= 24; seed++) {
      const trace = sampleTrace(seed);
      const mutated = new MutateGemmKnob().apply(trace, new RandomEngine(seed), ctx)!;
      const orders = categoricalsFeeding(trace, new Set([FETCH_THREAD_INNER]));
      expect(orders).toHaveLength(2);
      const diff = changed(trace, mutated);
      if (diff.length === 1 && orders.includes(decisions(trace)[diff[0]!]!.inst)) {
        const order = decisions(trace)[diff[0]!]!.inst;
        expect(decisionValue(mutated, order)).toBe(1 - decisionValue(trace, order));
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(0);
  });

  /** The values of the pipeline knob and the fetch-path knobs (in that order). */
  function jointValues(trace: Trace): number[] {
    const knobs = [...categoricalsFeeding(trace, new Set([SOFTWARE_PIPELINE])), ...categoricalsFeeding(trace, new Set([FETCH_VIA_REGISTERS]))];
    expect(knobs).toHaveLength(3);
    return knobs.map((k) => decisionValue(trace, k));
  }

  function withJointValues(trace: Trace, values: readonly number[]): Trace {
    const knobs = [...categoricalsFeeding(trace, new Set([SOFTWARE_PIPELINE])), ...categoricalsFeeding(trace, new Set([FETCH_VIA_REGISTERS]))];
    return knobs.reduce((t, k, i) => t.withDecision(k, (k.attrs[0] as number[]).indexOf(values[i]!), { removePostproc: true }), trace);
  }

  it("movePipelineWithFetch moves between the register-prefetch pipeline (all on) and direct fetches (all off), and from any mixed combination to one of the two", () => {
    const combos = [0, 1, 2, 3, 4, 5, 6, 7].map((bits) => [bits & 1, (bits >> 1) & 1, (bits >> 2) & 1]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 }), fc.constantFrom(...combos), fc.integer({ min: 1, max: 10_000 }), (sampleSeed, combo, rngSeed) => {
        const trace = withJointValues(sampleTrace(sampleSeed), combo);
        const moved = movePipelineWithFetch(trace, new RandomEngine(rngSeed))!;
        const after = jointValues(moved);
        const whole = new Set(after);
        expect(whole.size).toBe(1);
        if (new Set(combo).size === 1) expect(after[0]).toBe(1 - combo[0]!);
        expect(changed(trace, moved).length).toBe(combo.filter((v) => v !== after[0]).length);
        expect(replayWithPostprocs(ctx, moved, [], { seed: rngSeed }).ok).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it("movePipelineWithFetch reaches the register-prefetch pipeline from the pipeline with one operand staged (regression: it could only turn everything off)", () => {
    // A search that had found [pipeline on, A staged, B direct] kept its best there: the joint move
    // only ever switched the pipeline off, and the whole register-prefetch pipeline was two moves away.
    const mixed = withJointValues(sampleTrace(3), [1, 1, 0]);
    const reached = new Set<string>();
    for (let seed = 1; seed <= 16; seed++) reached.add(JSON.stringify(jointValues(movePipelineWithFetch(mixed, new RandomEngine(seed))!)));
    expect(reached).toEqual(new Set([JSON.stringify([1, 1, 1]), JSON.stringify([0, 0, 0])]));
  });
});
