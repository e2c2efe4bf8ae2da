/**
 * Property: over random tilings and thread bindings of a small matmul (tile sizes that need not
 * divide, either axis on x or y, a local write cache or not, k in chunks), the race detector
 * reports nothing on a legal binding, and reports races on global memory (on C, and nowhere else)
 * exactly when the loop over k chunks is bound to a thread axis — several threads accumulating
 * one element of C. Accumulating in C itself, the simulated numbers still match (threads run one
 * after another); through a write cache, each thread writes back its partial sum.
 */
import { lower } from "@tessera/codegen";
import { matmul } from "@tessera/ir";
import { type LoopRV, Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareWithReference, formatSimulationReport } from "../src/index.js";

interface MatmulBinding {
  readonly n: number;
  readonly m: number;
  readonly l: number;
  /** Threads along i and along j (3 rarely divides: predicates). */
  readonly threadsI: number;
  readonly threadsJ: number;
  /** i on the x axes (blockIdx.x, threadIdx.x), else j is. */
  readonly iOnX: boolean;
  /** Chunks of k (the outer loop of k's split). */
  readonly kChunks: number;
  /** Where the chunk loop goes: a serial loop in each thread, or a third thread axis (a race when kChunks > 1). */
  readonly chunks: "serial" | "threadIdx.z";
  readonly writeCache: boolean;
}

const bindingArb: fc.Arbitrary<MatmulBinding> = fc.record({
  n: fc.integer({ min: 4, max: 20 }),
  m: fc.integer({ min: 4, max: 20 }),
  l: fc.integer({ min: 4, max: 20 }),
  threadsI: fc.constantFrom(1, 2, 3, 4, 8),
  threadsJ: fc.constantFrom(1, 2, 3, 4, 8),
  iOnX: fc.boolean(),
  kChunks: fc.integer({ min: 1, max: 4 }),
  chunks: fc.constantFrom("serial" as const, "threadIdx.z" as const),
  writeCache: fc.boolean(),
});

function schedule(b: MatmulBinding): Schedule {
  const sch = new Schedule(matmul(b.n, b.m, b.l).func);
  const block = sch.getBlock("C");
  const [i, j, k] = sch.getLoops(block) as [LoopRV, LoopRV, LoopRV];
  const [i0, i1] = sch.split(i, [null, b.threadsI]) as [LoopRV, LoopRV];
  const [j0, j1] = sch.split(j, [null, b.threadsJ]) as [LoopRV, LoopRV];
  const [k0, k1] = sch.split(k, [b.kChunks, null]) as [LoopRV, LoopRV];
  sch.reorder(i0, j0, i1, j1, k0, k1);
  const [x, y] = b.iOnX ? (["x", "y"] as const) : (["y", "x"] as const);
  sch.bind(i0, `blockIdx.${x}`);
  sch.bind(j0, `blockIdx.${y}`);
  sch.bind(i1, `threadIdx.${x}`);
  sch.bind(j1, `threadIdx.${y}`);
  if (b.chunks === "threadIdx.z") sch.bind(k0, "threadIdx.z");
  if (b.writeCache) sch.reverseComputeAt(sch.cacheWrite(block, 0, "local"), j1);
  return sch;
}

describe("global races over random matmul bindings", () => {
  it("none on a legal binding; on C exactly when k chunks are bound to threads", () => {
    let racy = 0;
    fc.assert(
      fc.property(bindingArb, (b) => {
        const module = lower(schedule(b).func, "nvidia/tesla-t4");
        const report = compareWithReference(module, matmul(b.n, b.m, b.l).func, { seed: 5, rtol: 1e-5, atol: 1e-5 });
        const sim = report.simulation;
        const shown = formatSimulationReport(sim);
        expect(sim.raceCounts.shared, shown).toBe(0);
        if (b.chunks === "threadIdx.z" && b.kChunks > 1) {
          racy++;
          if (!b.writeCache) expect(report.matches, shown).toBe(true);
          expect(sim.raceCounts.global, shown).toBeGreaterThan(0);
          expect(
            sim.races.every((r) => r.scope === "global" && r.buffer === "C" && r.firstThread[2] !== r.secondThread[2]),
            shown,
          ).toBe(true);
        } else {
          expect(report.matches, shown).toBe(true);
          expect(sim.raceCount, shown).toBe(0);
        }
      }),
      { numRuns: 60, seed: 41 },
    );
    // The property saw both outcomes.
    expect(racy).toBeGreaterThan(5);
  });
});
