import { target } from "@tessera/codegen";
import type { Schedule, Trace } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EvolutionarySearch, type MeasureCandidate, ScheduleFnSpace, tuneContext } from "../../src/index.js";
import { neighbourTraces } from "../../src/search/neighbourhood.js";
import { MAX_THREADS, backwardsModel, fastestOf, gemmWorkload, tileDecisions, tuneWithFakeRunner } from "./gemm-fixture.js";

/** The sampling decisions of a trace, in order (before postprocessing). */
function decisionsOf(trace: Trace): unknown[] {
  const out: unknown[] = [];
  for (const inst of trace.instructions) {
    if (inst.kind.name === "EnterPostproc") break;
    if (inst.kind.name.startsWith("Sample")) out.push(trace.getDecision(inst));
  }
  return out;
}

/** Every way to write `n` as a product of `parts` ordered factors. */
function perfectTilings(n: number, parts: number): number[][] {
  if (parts === 1) return [[n]];
  const out: number[][] = [];
  for (let d = 1; d <= n; d++) if (n % d === 0) for (const rest of perfectTilings(n / d, parts - 1)) out.push([d, ...rest]);
  return out;
}

const isPrime = (p: number) => p >= 2 && Array.from({ length: p - 2 }, (_, k) => k + 2).every((d) => p % d !== 0);

/** A design space with one categorical knob (probability 0 on its last candidate) and one 3-level tile of i (64). */
function knobAndTileSpace(maxInnermost: number): (sch: Schedule) => void {
  return (sch) => {
    const gemm = sch.getBlock("gemm");
    const [i] = sch.getLoops(gemm);
    const knob = sch.sampleCategorical([1, 2, 4, 8], [0.4, 0.3, 0.3, 0]);
    sch.annotate(gemm, "knob", knob);
    sch.split(i!, sch.samplePerfectTile(i!, 3, maxInnermost));
  };
}

function sampledTrace(spaceFn: (sch: Schedule) => void, seed: number): Trace {
  const ctx = tuneContext(gemmWorkload(), target("nvidia/h100"), { seed });
  const space = new ScheduleFnSpace(spaceFn, { postprocs: [], mutators: [] });
  space.initialize(ctx);
  return space.generateDesignSpace(ctx)[0]!.trace;
}

describe("neighbourTraces", () => {
  it("gives exactly the traces one decision away: another allowed categorical index, or one prime factor moved between tiles", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom(4, 8, 64), (seed, maxInnermost) => {
        const trace = sampledTrace(knobAndTileSpace(maxInnermost), seed);
        const [knob, tiles] = decisionsOf(trace) as [number, number[]];
        const neighbours = neighbourTraces(trace);
        const got = neighbours.map((n) => JSON.stringify(decisionsOf(n.trace))).sort();
        const expected = [
          ...[0, 1, 2].filter((k) => k !== knob).map((k) => JSON.stringify([k, tiles])),
          ...perfectTilings(64, 3)
            .filter((v) => v[2]! <= maxInnermost)
            .filter((v) => {
              const changed = v.map((t, k) => (t === tiles[k] ? -1 : k)).filter((k) => k >= 0);
              if (changed.length !== 2) return false;
              const [x, y] = changed as [number, number];
              const ratio = v[x]! > tiles[x]! ? v[x]! / tiles[x]! : v[y]! / tiles[y]!;
              return isPrime(ratio);
            })
            .map((v) => JSON.stringify([knob, v])),
        ].sort();
        expect(got).toEqual(expected);
        // Each names the decision it changed, and drops the postprocessing.
        for (const n of neighbours) {
          expect(n.decision).toBe(JSON.stringify((decisionsOf(n.trace) as unknown[])[0]) === JSON.stringify(knob) ? 1 : 0);
          expect(n.trace.instructions.some((i) => i.kind.name === "EnterPostproc")).toBe(false);
        }
      }),
      { numRuns: 25 },
    );
  });
});

/** The tile decisions of the best program's valid neighbours (at most MAX_THREADS threads) not measured yet. */
function openNeighbourTiles(best: MeasureCandidate, measured: readonly MeasureCandidate[]): Set<string> {
  const measuredTiles = new Set(measured.map((c) => JSON.stringify(tileDecisions(c.sch.trace))));
  return new Set(
    neighbourTraces(best.sch.trace)
      .map((n) => tileDecisions(n.trace))
      .filter((t) => t[0]![1]! * t[1]![1]! <= MAX_THREADS)
      .map((t) => JSON.stringify(t))
      .filter((t) => !measuredTiles.has(t)),
  );
}

describe("EvolutionarySearch neighbourShare", () => {
  it("gives each batch after the first its share of one-decision neighbours of the best measured programs", async () => {
    const out = await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 32, neighbourShare: 0.5, epsGreedy: 0 }), {
      seed: 3,
      maxTrials: 48,
      numTrialsPerIter: 16,
      costModel: backwardsModel,
    });
    expect(out.handedOut).toHaveLength(48);
    const distance = (a: Trace, b: Trace) => {
      const x = tileDecisions(a);
      const y = tileDecisions(b);
      return x.reduce((n, t, k) => n + (JSON.stringify(t) === JSON.stringify(y[k]) ? 0 : 1), 0);
    };
    for (let batch = 1; batch < 3; batch++) {
      const measured = out.handedOut.slice(0, 16 * batch);
      const best = fastestOf(measured);
      const picks = out.handedOut.slice(16 * batch, 16 * (batch + 1));
      const nearBest = picks.filter((c) => distance(c.sch.trace, best.sch.trace) === 1);
      const open = openNeighbourTiles(best, measured);
      expect(open.size).toBeGreaterThan(0);
      expect(nearBest.length).toBeGreaterThanOrEqual(Math.min(8, open.size));
    }
  });

  // Whether the neighbours improve on the best program: search-quality.test.ts (pnpm test:slow).

  it("gives the last batch finalNeighbourShare of neighbours of the best program, whatever the share of the batches before", async () => {
    const out = await tuneWithFakeRunner(new EvolutionarySearch({ populationSize: 32, neighbourShare: 0, finalNeighbourShare: 0.75, epsGreedy: 0 }), {
      seed: 5,
      maxTrials: 40,
      numTrialsPerIter: 16,
      costModel: backwardsModel,
    });
    expect(out.handedOut).toHaveLength(40);
    // The last batch holds the 8 trials left: 6 of them (0.75) neighbours of the best of the 32 before.
    const measured = out.handedOut.slice(0, 32);
    const best = fastestOf(measured);
    const open = openNeighbourTiles(best, measured);
    const last = out.handedOut.slice(32).map((c) => JSON.stringify(tileDecisions(c.sch.trace)));
    expect(open.size).toBeGreaterThan(0);
    expect(last.filter((t) => open.has(t)).length).toBeGreaterThanOrEqual(Math.min(6, open.size));
  });

  it("with polishTrials, ends on a batch of that many neighbours of the best program, the batch before it that much smaller", async () => {
    const config = { populationSize: 32, neighbourShare: 0, finalNeighbourShare: 0, epsGreedy: 0 };
    const run = (polishTrials: number) =>
      tuneWithFakeRunner(new EvolutionarySearch({ ...config, polishTrials }), { seed: 5, maxTrials: 32, numTrialsPerIter: 16, costModel: backwardsModel });
    const [plain, polished] = [await run(0), await run(4)];
    expect([plain.batches, polished.batches]).toEqual([2, 3]);
    expect(polished.handedOut).toHaveLength(32);
    // The first batch is the search's without the option; the last 4 are all open neighbours of the best of the 28 before them.
    const keys = (cs: readonly MeasureCandidate[]) => cs.map((c) => JSON.stringify(tileDecisions(c.sch.trace)));
    expect(keys(polished.handedOut.slice(0, 16))).toEqual(keys(plain.handedOut.slice(0, 16)));
    const measured = polished.handedOut.slice(0, 28);
    const open = openNeighbourTiles(fastestOf(measured), measured);
    expect(open.size).toBeGreaterThanOrEqual(4);
    expect(keys(polished.handedOut.slice(28)).filter((t) => open.has(t))).toHaveLength(4);
  });

  it("refuses polishTrials that are not an integer ≥ 0, or more than one batch", async () => {
    expect(() => new EvolutionarySearch({ polishTrials: -1 })).toThrow(/polishTrials must be an integer ≥ 0, got -1/);
    expect(() => new EvolutionarySearch({ polishTrials: 1.5 })).toThrow(/polishTrials must be an integer ≥ 0, got 1.5/);
    await expect(tuneWithFakeRunner(new EvolutionarySearch({ polishTrials: 17 }), { seed: 1, maxTrials: 32, numTrialsPerIter: 16 })).rejects.toThrow(
      /polishTrials \(17\) must be at most numTrialsPerIter \(16\)/,
    );
  });

  it("rejects a share outside [0, 1]", () => {
    expect(() => new EvolutionarySearch({ neighbourShare: 1.5 })).toThrow(/neighbourShare must be a number in \[0, 1\]/);
    expect(() => new EvolutionarySearch({ finalNeighbourShare: -0.1 })).toThrow(/finalNeighbourShare must be a number in \[0, 1\]/);
  });
});
