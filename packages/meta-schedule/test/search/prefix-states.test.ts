import { type BlockRealize, structuralEqual } from "@tessera/ir";
import { RandomEngine, ScheduleUsageError, type Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrefixStateCache } from "../../src/space/prefix-states.js";
import { type ReplayOutcome, replayWithPostprocs } from "../../src/space/replay.js";
import { tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";
import { replayFixture } from "./search-fixtures.js";

const { ctx, space, design } = replayFixture(5);

/** What a replay gave, in a form `toEqual` compares: the verdict, and the program's trace as JSON. */
function summary(out: ReplayOutcome) {
  return out.ok ? { ok: true, trace: JSON.stringify(out.sch.trace.toJSON()) } : { ok: false, reason: out.reason, detail: out.detail };
}

function expectSameReplay(cached: ReplayOutcome, full: ReplayOutcome): void {
  expect(summary(cached)).toEqual(summary(full));
  if (cached.ok && full.ok) expect(structuralEqual(cached.sch.func, full.sch.func)).toBe(true);
}

/** A sampled program of the design space (fresh decisions from `seed`), replayed in full. */
function sampled(seed: number): Trace | undefined {
  const out = replayWithPostprocs(ctx, design, space.postprocs, { freshDecisions: true, seed });
  return out.ok ? out.sch.trace : undefined;
}

describe("replay from a cached prefix state", () => {
  it("gives the module and trace of a full replay, for mutants and undecided samples of a replayed parent", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 1_000_000 }), (parentSeed, childSeed) => {
        const parent = sampled(parentSeed);
        fc.pre(parent !== undefined);
        const cache = new PrefixStateCache();
        const warm = replayWithPostprocs(ctx, parent!, space.postprocs, { seed: 1, prefixStates: cache });
        expectSameReplay(warm, replayWithPostprocs(ctx, parent!, space.postprocs, { seed: 1 }));
        const rng = new RandomEngine(childSeed);
        const children: Trace[] = [];
        for (const { mutator } of space.mutators) {
          const child = mutator.apply(parent!, rng, ctx);
          if (child !== undefined) children.push(child);
        }
        // The parent with one sampling instruction undecided: it samples afresh from the replay's seed, after the cached prefix.
        const postproc = parent!.instructions.findIndex((inst) => inst.kind.name === "EnterPostproc");
        const samples = parent!.instructions.slice(0, postproc).filter((inst) => inst.kind.name.startsWith("Sample"));
        children.push(parent!.withDecision(samples[rng.int(0, samples.length)]!, undefined, { removePostproc: true }));
        // Recorded decisions, and (for the last child only: it costs a full replay) every decision afresh.
        const plans = [...children.map((child) => ({ child, freshDecisions: false })), { child: children.at(-1)!, freshDecisions: true }];
        for (const { child, freshDecisions } of plans) {
          const opts = { freshDecisions, seed: childSeed };
          expectSameReplay(
            replayWithPostprocs(ctx, child, space.postprocs, { ...opts, prefixStates: cache }),
            replayWithPostprocs(ctx, child, space.postprocs, opts),
          );
        }
        expect(cache.hits).toBeGreaterThan(0);
      }),
      { numRuns: 3 },
    );
  });

  it("resumes from the longest cached prefix, and keeps at most its capacity of states", () => {
    const parent = sampled(11) ?? sampled(12)!;
    const cache = new PrefixStateCache(4);
    replayWithPostprocs(ctx, parent, space.postprocs, { seed: 1, prefixStates: cache });
    expect(cache.size).toBe(4);
    expect(cache.misses).toBe(1);
    replayWithPostprocs(ctx, parent, space.postprocs, { seed: 2, prefixStates: cache });
    expect(cache.hits).toBe(1);
    // The last sampling instruction before EnterPostproc: every instruction before it is skipped.
    const instructions = parent.instructions.slice(
      0,
      parent.instructions.findIndex((i) => i.kind.name === "EnterPostproc"),
    );
    const lastSample = Math.max(...instructions.flatMap((inst, k) => (inst.kind.name.startsWith("Sample") ? [k] : [])));
    expect(cache.instructionsSkipped).toBe(lastSample);
    expect(new PrefixStateCache(0).replay(ctx.workload.func, parent, { seed: 1, freshDecisions: false }).trace.instructions).toHaveLength(instructions.length);
    expect(() => new PrefixStateCache(-1)).toThrow(/capacity must be a non-negative integer, got -1/);
  });

  it("keeps the states of workloads that differ only in names apart", () => {
    const parent = sampled(11) ?? sampled(12)!;
    const cache = new PrefixStateCache();
    replayWithPostprocs(ctx, parent, space.postprocs, { seed: 1, prefixStates: cache });
    const func = ctx.workload.func;
    // The same structure, its root block named otherwise (a name is structure only when names are compared).
    const body = func.body as BlockRealize;
    const renamed = tuneContext(workloadOf({ ...func, body: { ...body, block: { ...body.block, name: "renamed_root" } } }), ctx.target, { seed: 1 });
    // The trace looks up the root block by name: the renamed workload does not replay it, from scratch or from the cache.
    expectSameReplay(
      replayWithPostprocs(renamed, parent, space.postprocs, { seed: 1, prefixStates: cache }),
      replayWithPostprocs(renamed, parent, space.postprocs, { seed: 1 }),
    );
    expect(cache.hits).toBe(0);
  });

  it("refuses to resume with handles that do not fit the trace", () => {
    const sch = new PrefixStateCache(0).replay(ctx.workload.func, design, { seed: 1, freshDecisions: true });
    expect(() => design.applyTo(sch.copy(), { removePostproc: true, resume: { outputs: [[], []] } })).toThrow(ScheduleUsageError);
    expect(() => design.applyTo(sch.copy(), { resume: { outputs: new Array(design.instructions.length + 1).fill([]) } })).toThrow(
      /cannot resume after \d+ instructions of a trace of \d+/,
    );
  });
});
