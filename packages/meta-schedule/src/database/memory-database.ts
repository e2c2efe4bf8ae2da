/**
 * A database held in memory (TVM's `MemoryDatabase`), also the index behind the JSON database:
 * workloads by structural hash (structural equality confirms a hash match), and each workload's
 * records kept sorted by mean run time (equal times keep commit order).
 */
import { type PrimFunc, structuralEqual } from "@tessera/ir";
import { MetaScheduleError } from "../errors.js";
import { type Workload, workloadOf } from "../workload.js";
import type { Database, TuningRecord } from "../interfaces/database.js";
import { isValidRecord, recordMeanRunSecs } from "./record-order.js";
import { impossibleRunSecs } from "./run-secs.js";

export class MemoryDatabase implements Database {
  private readonly workloadsByHash = new Map<string, Workload[]>();
  private readonly recordsByWorkload = new Map<string, Array<{ readonly record: TuningRecord; readonly mean: number }>>();
  /** Every record in commit order. */
  private readonly records: TuningRecord[] = [];

  /** The committed workload structurally equal to `func`, if any. */
  findWorkload(func: PrimFunc): Workload | undefined {
    return this.findByHash(workloadOf(func).hash, func);
  }

  hasWorkload(func: PrimFunc): boolean {
    return this.findWorkload(func) !== undefined;
  }

  commitWorkload(func: PrimFunc): Workload {
    return this.findWorkload(func) ?? this.addWorkload(workloadOf(func));
  }

  /** Adds a workload known to be new (the JSON database's loader and commit use it). */
  addWorkload(workload: Workload): Workload {
    const bucket = this.workloadsByHash.get(workload.hash);
    if (bucket === undefined) this.workloadsByHash.set(workload.hash, [workload]);
    else bucket.push(workload);
    return workload;
  }

  /** Commits the record's workload too when it is new. */
  commitTuningRecord(record: TuningRecord): void {
    const impossible = impossibleRunSecs(record.runSecs);
    if (impossible !== undefined) throw new MetaScheduleError(`a tuning record of ${record.workload.name} is refused: ${impossible}`);
    if (this.findByHash(record.workload.hash, record.workload.func) === undefined) this.addWorkload(record.workload);
    const key = record.workload.hash;
    const mean = recordMeanRunSecs(record);
    let list = this.recordsByWorkload.get(key);
    if (list === undefined) this.recordsByWorkload.set(key, (list = []));
    // After every record that is not slower: equal times keep commit order.
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.mean <= mean) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, { record, mean });
    this.records.push(record);
  }

  getTopK(workload: Workload, k: number): TuningRecord[] {
    if (!Number.isSafeInteger(k) || k < 0) throw new MetaScheduleError(`getTopK: k must be a non-negative integer, got ${k}`);
    const out: TuningRecord[] = [];
    for (const { record } of this.recordsByWorkload.get(workload.hash) ?? []) {
      if (out.length >= k) break;
      if (isValidRecord(record)) out.push(record);
    }
    return out;
  }

  /** All records in commit order. */
  getAllTuningRecords(): TuningRecord[] {
    return [...this.records];
  }

  size(): number {
    return this.records.length;
  }

  private findByHash(hash: string, func: PrimFunc): Workload | undefined {
    return this.workloadsByHash.get(hash)?.find((w) => w.func === func || structuralEqual(w.func, func));
  }
}
