/**
 * Seeds for a new task from the database's records of similar tasks (beyond TVM, whose search
 * starts from the task's own records only): workloads of the same op structure and other shapes,
 * whose traces replay the new task's design space step for step. A record is retargeted by value:
 * each sampling decision of the design space takes the record's value (the nearest candidate of a
 * categorical, the tile factors as drawn; replay repairs factors that no longer divide), so that a
 * 128×128 tiling found at 4096³ is tried first at 1000³. Validation is the caller's replay.
 */
import { TesseraError } from "@tessera/ir";
import { type Decision, type Instruction, Trace } from "@tessera/schedule";
import type { Database, TuningRecord } from "../interfaces/database.js";
import type { Workload } from "../workload.js";
import { instructionsBeforePostproc } from "../mutator/trace-queries.js";
import { isValidRecord, recordMeanRunSecs } from "./record-order.js";

/** The candidate of `candidates` nearest to `value` (on a log scale for positive values), as its index. */
export function nearestIndex(candidates: readonly number[], value: number): number {
  const distance = (c: number) => (c > 0 && value > 0 ? Math.abs(Math.log(c / value)) : Math.abs(c - value));
  let best = 0;
  candidates.forEach((c, k) => {
    if (distance(c) < distance(candidates[best]!)) best = k;
  });
  return best;
}

/** The record's decision of `from`, moved onto `to` of the design space; undefined when it cannot be. */
function transferDecision(from: Instruction, decision: Decision, to: Instruction): Decision | undefined {
  if (from.kind.name === "SampleCategorical") {
    const old = from.attrs[0] as readonly number[];
    const value = old[decision as number];
    return value === undefined ? undefined : nearestIndex(to.attrs[0] as readonly number[], value);
  }
  return decision;
}

/**
 * The design space `space` with the decisions of `recorded` (a record of another workload), or
 * undefined when the two traces do not take the same steps (other op structure).
 */
export function retargetTrace(recorded: Trace, space: Trace): Trace | undefined {
  // Both without postprocessing and dead steps (the search's design spaces are simplified so).
  const record = recorded.simplified({ removePostproc: true });
  let out = space.simplified({ removePostproc: true });
  const from = instructionsBeforePostproc(record);
  const to = instructionsBeforePostproc(out);
  if (from.length !== to.length || from.some((inst, k) => inst.kind.name !== to[k]!.kind.name)) return undefined;
  for (const [k, inst] of from.entries()) {
    const decision = record.getDecision(inst);
    if (decision === undefined) continue;
    const moved = transferDecision(inst, decision, to[k]!);
    if (moved === undefined) return undefined;
    out = out.withDecision(to[k]!, moved);
  }
  return out;
}

export interface SimilarSeedOptions {
  /** Only records measured for this target (by name). */
  readonly targetName?: string;
}

/**
 * Up to `count` retargeted traces for `workload`, from the best valid records of the other
 * workloads whose traces retarget onto one of `designSpaces`: the workloads' best records taken in
 * turn (the best of each first), each ordering by mean run time.
 */
export function seedsFromSimilarWorkloads(
  database: Database,
  workload: Workload,
  designSpaces: readonly Trace[],
  count: number,
  opts: SimilarSeedOptions = {},
): Trace[] {
  if (count <= 0 || designSpaces.length === 0) return [];
  const byWorkload = new Map<string, TuningRecord[]>();
  for (const r of database.getAllTuningRecords()) {
    if (r.workload.hash === workload.hash || !isValidRecord(r)) continue;
    if (opts.targetName !== undefined && r.target.name !== opts.targetName) continue;
    const list = byWorkload.get(r.workload.hash) ?? [];
    list.push(r);
    byWorkload.set(r.workload.hash, list);
  }
  const ranked = [...byWorkload.values()].map((list) => list.sort((a, b) => recordMeanRunSecs(a) - recordMeanRunSecs(b)));
  const out: Trace[] = [];
  const seen = new Set<string>();
  for (let rank = 0; out.length < count && ranked.some((list) => rank < list.length); rank++) {
    for (const list of ranked) {
      const record = list[rank];
      if (record === undefined || out.length >= count) continue;
      const trace = retargeted(record, designSpaces);
      const key = trace === undefined ? undefined : JSON.stringify(trace.toJSON());
      if (trace === undefined || seen.has(key!)) continue;
      seen.add(key!);
      out.push(trace);
    }
  }
  return out;
}

function retargeted(record: TuningRecord, designSpaces: readonly Trace[]): Trace | undefined {
  let recorded: Trace;
  try {
    recorded = Trace.fromJSON(record.trace);
  } catch (err) {
    if (!(err instanceof TesseraError)) throw err;
    return undefined;
  }
  for (const space of designSpaces) {
    const out = retargetTrace(recorded, space);
    if (out !== undefined) return out;
  }
  return undefined;
}
