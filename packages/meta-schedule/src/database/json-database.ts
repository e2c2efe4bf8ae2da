/**
 * A tuning database in a work directory (TVM's `JSONDatabase`): `database_workload.json` and
 * `database_tuning_record.json`, JSON-lines files that are only ever appended to (see
 * json-lines.ts for durability and damage handling, record-json.ts for the line layout). The
 * whole database is loaded into a MemoryDatabase on opening; every commit appends and fsyncs
 * its lines (one record, or a measured batch at once) before it returns. A new workload's index is its line's position when it is
 * appended, so that two processes appending to one directory file records under the right
 * workload; a tuning run still locks its work dir (work-dir-lock.ts).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { PrimFunc } from "@tessera/ir";
import { DatabaseError } from "../errors.js";
import type { Logger } from "../tune-context.js";
import { type Workload, workloadOf } from "../workload.js";
import type { Database, TuningRecord } from "../interfaces/database.js";
import { appendJSONLine, appendJSONLines, countJSONLines, readJSONLines, withFileErrors } from "./json-lines.js";
import { MemoryDatabase } from "./memory-database.js";
import { impossibleRunSecs } from "./run-secs.js";
import { looksLikeRecordLinePrefix, looksLikeWorkloadLinePrefix, recordFromLine, recordToLine, workloadFromLine, workloadToLine } from "./record-json.js";

export const WORKLOAD_FILE = "database_workload.json";
export const TUNING_RECORD_FILE = "database_tuning_record.json";

export interface JSONDatabaseOptions {
  /** Warnings (a repaired file); by default printed to stderr. */
  readonly log?: Logger;
  /**
   * Only read (`tessera build --database`): the directory must exist, nothing is created or
   * repaired (an incomplete last line is ignored with a warning), and commits of anything new fail.
   */
  readonly readOnly?: boolean;
}

const stderrLogger: Logger = (level, message) => {
  if (level === "warn") process.stderr.write(`warning: ${message}\n`);
};

export class JSONDatabase implements Database {
  readonly workloadFile: string;
  readonly recordFile: string;
  private readonly memory = new MemoryDatabase();
  /** Workload index in the file, by structural hash. */
  private readonly indexByHash = new Map<string, number>();
  private readonly readOnly: boolean;

  /** Opens (creating when missing) the database in `workDir`. */
  constructor(
    readonly workDir: string,
    opts: JSONDatabaseOptions = {},
  ) {
    const log = opts.log ?? stderrLogger;
    this.readOnly = opts.readOnly === true;
    if (this.readOnly) {
      if (!existsSync(workDir)) throw new DatabaseError(workDir, undefined, "no tuning database here: the directory does not exist");
    } else withFileErrors(workDir, "create the work directory at", () => mkdirSync(workDir, { recursive: true }));
    this.workloadFile = join(workDir, WORKLOAD_FILE);
    this.recordFile = join(workDir, TUNING_RECORD_FILE);
    // Line k of the workload file is workload k, duplicates (same function twice) included.
    const byIndex: Workload[] = [];
    for (const { line, value } of readJSONLines(this.workloadFile, { log, looksLikeOurs: looksLikeWorkloadLinePrefix, repair: !this.readOnly })) {
      const parsed = workloadFromLine(value, this.workloadFile, line);
      const known = this.memory.findWorkload(parsed.func);
      const workload = known ?? this.memory.addWorkload(parsed);
      if (known === undefined) this.indexByHash.set(workload.hash, byIndex.length);
      byIndex.push(workload);
    }
    for (const { line, value } of readJSONLines(this.recordFile, { log, looksLikeOurs: looksLikeRecordLinePrefix, repair: !this.readOnly })) {
      this.memory.commitTuningRecord(recordFromLine(value, this.recordFile, line, (k) => byIndex[k], byIndex.length));
    }
  }

  hasWorkload(func: PrimFunc): boolean {
    return this.memory.hasWorkload(func);
  }

  commitWorkload(func: PrimFunc): Workload {
    const known = this.memory.findWorkload(func);
    if (known !== undefined) return known;
    return this.appendWorkload(workloadOf(func));
  }

  commitTuningRecord(record: TuningRecord): void {
    this.commitTuningRecords([record]);
  }

  /** Commits a batch with one write and one fsync; a record with impossible run times refuses the whole batch before anything is written. */
  commitTuningRecords(records: readonly TuningRecord[]): void {
    this.checkWritable(this.recordFile);
    for (const record of records) {
      const impossible = impossibleRunSecs(record.runSecs);
      if (impossible !== undefined) throw new DatabaseError(this.recordFile, undefined, `a record of ${record.workload.name} is refused: ${impossible}`);
    }
    const filed = records.map((record) => {
      const workload = this.memory.findWorkload(record.workload.func) ?? this.appendWorkload(record.workload);
      return record.workload === workload ? record : { ...record, workload };
    });
    appendJSONLines(
      this.recordFile,
      filed.map((record) => recordToLine(record, this.indexByHash.get(record.workload.hash)!)),
    );
    for (const record of filed) this.memory.commitTuningRecord(record);
  }

  getTopK(workload: Workload, k: number): TuningRecord[] {
    return this.memory.getTopK(workload, k);
  }

  /** All records in file order. */
  getAllTuningRecords(): TuningRecord[] {
    return this.memory.getAllTuningRecords();
  }

  size(): number {
    return this.memory.size();
  }

  private checkWritable(file: string): void {
    if (this.readOnly) throw new DatabaseError(file, undefined, "the database is open read-only; nothing can be committed");
  }

  /** A new workload: written to the file first, then known in memory. */
  private appendWorkload(workload: Workload): Workload {
    this.checkWritable(this.workloadFile);
    // The index is the line's position in the file as it is now, not as it was when this
    // database was opened: another process may have appended workloads since (issue 33: records
    // of one function were filed under another's index).
    const index = countJSONLines(this.workloadFile);
    appendJSONLine(this.workloadFile, workloadToLine(workload));
    this.indexByHash.set(workload.hash, index);
    return this.memory.addWorkload(workload);
  }
}
