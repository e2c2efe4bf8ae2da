/**
 * The tuning database (TVM's `Database`): workloads by structural hash, and tuning records
 * (trace, measured run times, target, arguments) per workload, best first.
 */
import type { PrimFunc } from "@tessera/ir";
import type { TraceJSON } from "@tessera/schedule";
import type { ArgInfo } from "../arg-info.js";
import type { Workload } from "../workload.js";

export interface TuningRecord {
  readonly workload: Workload;
  /** The candidate's whole trace, postprocessing included (`trace.toJSON()`). */
  readonly trace: TraceJSON;
  /** Seconds per run (one per repeat), or undefined when the build or run failed. */
  readonly runSecs: readonly number[] | undefined;
  /** Name of the target it was measured for (`nvidia/h100`), with the limits that mattered. */
  readonly target: TargetConfig;
  readonly argsInfo: readonly ArgInfo[];
}

/** The target as a record stores it (TVM's target config dict, our keys). */
export interface TargetConfig {
  readonly name: string;
  readonly arch: string;
  readonly maxThreadsPerBlock: number;
  readonly maxSharedMemoryPerBlock: number;
  /** The device the run was timed on (`NVIDIA H100 80GB HBM3`), or `simulated`. */
  readonly device?: string;
}

export interface Database {
  hasWorkload(func: PrimFunc): boolean;
  /** The workload of `func`, added when new. */
  commitWorkload(func: PrimFunc): Workload;
  commitTuningRecord(record: TuningRecord): void;
  /** Commits several records at once (a measured batch); a database without it gets them one by one. */
  commitTuningRecords?(records: readonly TuningRecord[]): void;
  /** The k best valid records of the workload (all run times finite and below 1e10), best first. */
  getTopK(workload: Workload, k: number): TuningRecord[];
  getAllTuningRecords(): TuningRecord[];
  size(): number;
}
