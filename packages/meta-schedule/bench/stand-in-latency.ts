/**
 * A stand-in for measuring, for benches that time the search itself: each candidate "runs" in 1–2 ms,
 * a fixed function of its program's structural hash (so the same program always gets the same time),
 * and the result is committed to the database as a measured record would be.
 */
import type { CudaTarget } from "@tessera/codegen";
import { type PrimFunc, structuralHash } from "@tessera/ir";
import { argsInfoOf } from "../src/arg-info.js";
import type { Database } from "../src/interfaces/database.js";
import type { MeasureCandidate } from "../src/interfaces/candidate.js";

export interface StandInResult {
  readonly ok: true;
  readonly runSecs: number[];
}

/** The stand-in's results for `batch`, each also committed to `database` as a tuning record of `func` on `target`. */
export function measureWithStandIn(database: Database, func: PrimFunc, target: CudaTarget, batch: readonly MeasureCandidate[]): StandInResult[] {
  const results = batch.map((c) => ({ ok: true as const, runSecs: [1e-3 * (1 + Number.parseInt(structuralHash(c.sch.func).slice(0, 6), 16) / 0xffffff)] }));
  batch.forEach((c, k) => {
    database.commitTuningRecord({
      workload: database.commitWorkload(func),
      trace: c.sch.trace.toJSON(),
      runSecs: results[k]!.runSecs,
      target,
      argsInfo: argsInfoOf(func),
    });
  });
  return results;
}
