/**
 * Applying tuning results (TVM's `Database.query_schedule`, used by `compile_tir` and
 * `tessera build --database`): the best valid record of a function, replayed — postprocessing
 * included — on a fresh schedule of it, which gives the very program that was measured.
 */
import type { PrimFunc } from "@tessera/ir";
import type { Target } from "@tessera/codegen";
import type { Schedule } from "@tessera/schedule";
import { MetaScheduleError } from "../errors.js";
import { scheduleFromRecord } from "./apply-record.js";
import { recordAppliesTo } from "./target-match.js";
import type { Database, TuningRecord } from "../interfaces/database.js";

export interface BestSchedule {
  readonly sch: Schedule;
  readonly record: TuningRecord;
}

/**
 * The best record of `func` measured for `target` or a target of its family (`c` and `llvm` are one:
 * target-match.ts; any target when omitted), replayed; undefined
 * when the database has no valid record for it. Records that do not replay (made by another
 * version of the compiler) are skipped; when none replays the error lists why.
 */
export function queryBestSchedule(db: Database, func: PrimFunc, target?: Target | string): BestSchedule | undefined {
  if (!db.hasWorkload(func)) return undefined;
  const workload = db.commitWorkload(func);
  const targetName = typeof target === "string" ? target : target?.name;
  const candidates = db.getTopK(workload, db.size()).filter((r) => targetName === undefined || recordAppliesTo(r.target.name, targetName));
  const problems: string[] = [];
  for (const record of candidates) {
    try {
      return { sch: scheduleFromRecord(record, func), record };
    } catch (err) {
      if (!(err instanceof MetaScheduleError)) throw err;
      problems.push(err.message);
    }
  }
  if (candidates.length === 0) return undefined;
  throw new MetaScheduleError(
    `none of the ${candidates.length} record(s) of workload ${workload.name}${targetName === undefined ? "" : ` for ${targetName}`} replays on it; the first failed: ${problems[0]}`,
  );
}
