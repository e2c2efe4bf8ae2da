/**
 * On real H100 measurements (fixtures/, 128 programs of one tuning run, fastest first), a forest
 * learned on kernel-summary features ranks unseen programs far better than the same forest on
 * per-store rows. Replaying the 128 traces at 2048³ and training the forests takes half a minute,
 * so this runs in `pnpm test:slow` (vitest.config.ts); the features themselves: kernel-summary.test.ts.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { target } from "@tessera/codegen";
import { gemmReluAdd } from "@tessera/ir";
import { Schedule, Trace, type TraceJSON } from "@tessera/schedule";
import { beforeAll, describe, expect, it } from "vitest";
import { ForestModel, type MeasureCandidate, type RunnerResult, tuneContext, workloadOf } from "../../src/index.js";
import { kernelSummaryForest } from "../../src/cost-model/hybrid-model.js";
import { spearman } from "./rank-correlation.js";

describe("a forest on kernel-summary features, on H100 measurements", () => {
  const records = (
    JSON.parse(gunzipSync(readFileSync(new URL("./fixtures/h100-gemm-relu-add-2048.json.gz", import.meta.url))).toString("utf8")) as {
      records: { ms: number; trace: TraceJSON }[];
    }
  ).records;
  const big = gemmReluAdd(2048).func;
  const h100 = tuneContext(workloadOf(big), target("nvidia/h100"), { seed: 1 });
  let candidates: MeasureCandidate[] = [];
  beforeAll(() => {
    candidates = records.map((r) => {
      const sch = new Schedule(big);
      Trace.fromJSON(r.trace).applyTo(sch);
      return { sch, argsInfo: [] };
    });
  }, 120_000);

  /** Spearman correlation on the odd records of a model trained on the even ones (the fixture is sorted by time, so both halves span it). */
  function heldOutRho(make: (seed: number) => ForestModel, seed: number): number {
    const train = candidates.filter((_, k) => k % 2 === 0);
    const test = candidates.filter((_, k) => k % 2 === 1);
    const model = make(seed);
    model.update(
      h100,
      train,
      records.filter((_, k) => k % 2 === 0).map((r): RunnerResult => ({ ok: true, runSecs: [r.ms / 1e3] })),
    );
    return spearman(
      model.predict(h100, test),
      records.filter((_, k) => k % 2 === 1).map((r) => 1 / r.ms),
    );
  }

  it("ranks held-out programs well, and better than the per-store forest", () => {
    for (const seed of [1, 2]) {
      const summary = heldOutRho((s) => kernelSummaryForest({ seed: s }), seed);
      const perStore = heldOutRho((s) => new ForestModel({ seed: s }), seed);
      expect(summary).toBeGreaterThan(0.7);
      expect(summary).toBeGreaterThan(perStore + 0.2);
    }
  }, 120_000);
});
