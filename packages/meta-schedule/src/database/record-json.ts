/**
 * The lines of the JSON database (TVM's layout, our contents):
 *   workload line: `[structural_hash, tvmscript]` — the function's TVMScript as plain text (TVM
 *     writes base64 there; base64 text is accepted when reading);
 *   record line:   `[workload_index, [trace, run_secs, target_config, args_info]]` — the trace in
 *     our trace JSON (TVM's array layout is accepted), run_secs `null` for a failed candidate.
 * The workload index is the 0-based position of the workload line among the file's lines.
 * Parsing a line checks its shape and reports what is wrong in the file's terms.
 */
import { TesseraError, parseTVMScript, printTVMScript } from "@tessera/ir";
import { Trace, type TraceJSON } from "@tessera/schedule";
import { z } from "zod";
import { ArgInfoJSONSchema, argInfoFromJSON, argInfoToJSON } from "../arg-info.js";
import { DatabaseError } from "../errors.js";
import { FAILED_RUN_SECS } from "../interfaces/runner.js";
import { impossibleRunSecs } from "./run-secs.js";
import { type Workload, workloadOf } from "../workload.js";
import type { TargetConfig, TuningRecord } from "../interfaces/database.js";

export type WorkloadLine = [hash: string, tvmscript: string];

export function workloadToLine(w: Workload): WorkloadLine {
  return [w.hash, printTVMScript(w.func, { funcName: w.name })];
}

const workloadLineSchema = z.tuple([z.string(), z.string()]);

export function workloadFromLine(value: unknown, file: string, line: number): Workload {
  const parsed = workloadLineSchema.safeParse(value);
  if (!parsed.success) throw new DatabaseError(file, line, "expected a workload line [structural_hash, tvmscript]; the file is corrupt or of another format");
  const [, stored] = parsed.data;
  const text = isBase64(stored) ? Buffer.from(stored, "base64").toString("utf8") : stored;
  let entries;
  try {
    entries = [...parseTVMScript(text, { fileName: `${file}:${line}` }).functions];
  } catch (err) {
    if (!(err instanceof TesseraError)) throw err;
    const hint = text.trimStart().startsWith("{") ? " (it is JSON: a database written by TVM stores its own IR serialisation, which Tessera cannot read)" : "";
    throw new DatabaseError(file, line, `the workload's TVMScript does not parse${hint}: ${err.message}`);
  }
  if (entries.length !== 1) throw new DatabaseError(file, line, `a workload is one function; this line holds ${entries.length}`);
  const [name, func] = entries[0]!;
  return workloadOf(func, name);
}

function isBase64(text: string): boolean {
  return text.length > 0 && text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text);
}

export type RecordLine = [workloadIndex: number, [trace: TraceJSON, runSecs: number[] | null, target: TargetConfig, argsInfo: unknown[]]];

/** JSON has no NaN or Infinity: a run time that is not finite is written as TVM's failure time, 1e10 s. */
export function recordToLine(record: TuningRecord, workloadIndex: number): RecordLine {
  const runSecs = record.runSecs === undefined ? null : record.runSecs.map((s) => (Number.isFinite(s) ? s : FAILED_RUN_SECS));
  return [workloadIndex, [record.trace, runSecs, { ...record.target }, record.argsInfo.map(argInfoToJSON)]];
}

const targetConfigSchema = z.object({
  name: z.string(),
  arch: z.string(),
  maxThreadsPerBlock: z.number().int().positive(),
  maxSharedMemoryPerBlock: z.number().int().nonnegative(),
  device: z.string().optional(),
});

const recordLineSchema = z.tuple([
  z.number().int().nonnegative(),
  z.tuple([z.unknown(), z.array(z.number()).nullable(), targetConfigSchema, z.array(ArgInfoJSONSchema)]),
]);

/** A record line's parts; `workloadAt` resolves the index (undefined when out of range). */
export function recordFromLine(
  value: unknown,
  file: string,
  line: number,
  workloadAt: (index: number) => Workload | undefined,
  workloadCount: number,
): TuningRecord {
  const parsed = recordLineSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DatabaseError(
      file,
      line,
      `expected a record line [workload_index, [trace, run_secs, target_config, args_info]] (at ${issue.path.join(".") || "the top"}: ${issue.message}); the file is corrupt or of another format`,
    );
  }
  const [index, [rawTrace, runSecs, target, argsInfo]] = parsed.data;
  const impossible = impossibleRunSecs(runSecs ?? undefined);
  if (impossible !== undefined) throw new DatabaseError(file, line, `the record's measurement is impossible: ${impossible}; the file is corrupt or was edited`);
  const workload = workloadAt(index);
  if (workload === undefined) throw new DatabaseError(file, line, `the record names workload ${index}, but the workload file has ${workloadCount} workload(s)`);
  let trace: TraceJSON;
  try {
    const t = Trace.fromJSON(rawTrace);
    trace = Array.isArray(rawTrace) ? t.toJSON() : (rawTrace as TraceJSON);
  } catch (err) {
    if (!(err instanceof TesseraError)) throw err;
    throw new DatabaseError(file, line, `the record's trace is not valid: ${err.message}`);
  }
  const config: TargetConfig = {
    name: target.name,
    arch: target.arch,
    maxThreadsPerBlock: target.maxThreadsPerBlock,
    maxSharedMemoryPerBlock: target.maxSharedMemoryPerBlock,
  };
  return {
    workload,
    trace,
    runSecs: runSecs ?? undefined,
    target: target.device === undefined ? config : { ...config, device: target.device },
    argsInfo: argsInfo.map(argInfoFromJSON),
  };
}

/** Could `text` be the start of a workload line (`["…`) or a record line (`[12,[…`)? */
export function looksLikeWorkloadLinePrefix(text: string): boolean {
  return /^\[("|$)/.test(text);
}

export function looksLikeRecordLinePrefix(text: string): boolean {
  return /^\[(\d+(,(\[.*)?)?)?$/s.test(text);
}
