/**
 * Measure callbacks (TVM's `MeasureCallback`): what happens to every measured batch after the
 * search strategy has been told. The defaults, in TVM's order: AddToDatabase (commit the workload
 * and one record per candidate, failures included with run_secs [1e10]) and UpdateCostModel.
 */
import type { BuilderResult } from "../interfaces/builder.js";
import type { CostModel } from "../interfaces/cost-model.js";
import type { Database, TargetConfig, TuningRecord } from "../interfaces/database.js";
import { FAILED_RUN_SECS, type RunnerResult } from "../interfaces/runner.js";
import type { MeasureCandidate } from "../interfaces/candidate.js";
import type { TuneTarget } from "../tune-context.js";
import type { TaskRecord } from "./task-record.js";

export interface MeasuredBatch {
  readonly task: TaskRecord;
  readonly candidates: readonly MeasureCandidate[];
  readonly builderResults: readonly BuilderResult[];
  /** One per candidate; a build failure appears here as a failed run. */
  readonly runnerResults: readonly RunnerResult[];
  readonly database: Database;
  readonly costModel: CostModel | undefined;
}

export interface MeasureCallback {
  readonly name: string;
  apply(batch: MeasuredBatch): void;
}

/** The target as a tuning record stores it. */
/**
 * The target as a record keeps it. A CPU target (`c`, `llvm -mcpu=…`) keeps its -march value as
 * the architecture; it has no thread blocks (1 thread, no shared memory).
 */
export function targetConfigOf(target: TuneTarget, device?: string): TargetConfig {
  if (target.kind === "c")
    return { name: target.name, arch: target.march, maxThreadsPerBlock: 1, maxSharedMemoryPerBlock: 0, ...(device === undefined ? {} : { device }) };
  return {
    name: target.name,
    // WebGPU and Metal have no architecture name: their kind stands for it.
    arch: target.kind === "cuda" ? target.arch : target.kind,
    maxThreadsPerBlock: target.maxThreadsPerBlock,
    maxSharedMemoryPerBlock: target.maxSharedMemoryPerBlock,
    ...(device === undefined ? {} : { device }),
  };
}

export function addToDatabase(): MeasureCallback {
  return {
    name: "AddToDatabase",
    apply({ task, candidates, runnerResults, database }) {
      const workload = database.commitWorkload(task.ctx.workload.func);
      const target = targetConfigOf(task.ctx.target);
      const records = candidates.map((candidate, i): TuningRecord => {
        const result = runnerResults[i]!;
        return {
          workload,
          trace: candidate.sch.trace.toJSON(),
          runSecs: result.ok && result.runSecs.length > 0 ? [...result.runSecs] : [FAILED_RUN_SECS],
          target,
          argsInfo: candidate.argsInfo,
        };
      });
      // One durable write for the batch where the database can (JSONDatabase: one fsync, not one a record).
      if (database.commitTuningRecords !== undefined) database.commitTuningRecords(records);
      else for (const record of records) database.commitTuningRecord(record);
    },
  };
}

export function updateCostModel(): MeasureCallback {
  return {
    name: "UpdateCostModel",
    apply({ task, candidates, runnerResults, costModel }) {
      costModel?.update(task.ctx, candidates, runnerResults);
    },
  };
}

export function defaultMeasureCallbacks(): MeasureCallback[] {
  return [addToDatabase(), updateCostModel()];
}
