/**
 * Applying tuning results (TVM's `compile_tir`): the best record of a workload in a database, and
 * a record replayed onto the function — its whole trace, postprocessing included, with the
 * recorded decisions. (The database module's `queryBestSchedule` replays with `scheduleFromRecord`
 * too, filtering by target and skipping records that no longer replay.)
 */
import { type PrimFunc, TesseraError } from "@tessera/ir";
import { Schedule, Trace } from "@tessera/schedule";
import type { Database, TuningRecord } from "../interfaces/database.js";
import { MetaScheduleError } from "../errors.js";

/** The schedule of `func` that `record` describes. */
export function scheduleFromRecord(record: TuningRecord, func: PrimFunc = record.workload.func): Schedule {
  const sch = new Schedule(func);
  try {
    Trace.fromJSON(record.trace).applyTo(sch);
  } catch (err) {
    if (err instanceof TesseraError)
      throw new MetaScheduleError(`the tuning record of workload ${record.workload.name} (${record.workload.hash}) does not replay: ${err.message}`);
    throw err;
  }
  return sch;
}

/** The best record of `func` in the database, or undefined when it has none. */
export function queryBestRecord(database: Database, func: PrimFunc): TuningRecord | undefined {
  if (!database.hasWorkload(func)) return undefined;
  // The workload is known, so commitWorkload only returns the database's own copy of it.
  return database.getTopK(database.commitWorkload(func), 1)[0];
}
