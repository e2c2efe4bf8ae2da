/**
 * Replaying a trace on a schedule (TVM's `Trace::ApplyToSchedule`): every instruction runs again
 * through `Schedule.invokeKind`, with its input handles mapped from the trace's handles to the
 * ones the new schedule produced, and with the recorded decision unless the caller overrides it.
 */
import { TesseraError } from "@tessera/ir";
import { LoopRV, type RV, isRV } from "../handles.js";
import type { Decision, Instruction, InstructionInput } from "../instruction.js";
import type { Schedule } from "../schedule.js";
import { ScheduleUsageError } from "../errors.js";
import { TraceReplayError } from "./errors.js";
import { validInstructions } from "./kinds.js";
import type { TraceLike } from "./trace-like.js";

/**
 * Overrides decisions by instruction index: a value replaces the recorded decision, `null` makes
 * the instruction sample afresh, `undefined` (or no map entry) keeps the recorded decision.
 */
export type DecisionOverrides =
  | ReadonlyMap<number, Decision | null>
  | ((inst: Instruction, index: number, recorded: Decision | undefined) => Decision | null | undefined);

export interface ApplyOptions {
  decisions?: DecisionOverrides;
  /** Stop at TVM's EnterPostproc marker (drop postprocessing instructions). */
  removePostproc?: boolean;
  /**
   * Resume a replay: the schedule already holds the first `outputs.length` instructions of the
   * trace applied (a copy of a schedule that replayed them), and `outputs[j]` are the handles
   * instruction j gave on it. Replay starts at the next instruction.
   */
  resume?: { readonly outputs: readonly (readonly RV[])[] };
  /**
   * Called before instruction `index` is applied, with the handles each earlier instruction gave on
   * the schedule (the array grows as the replay goes on: copy what is kept). For snapshots of partial replays.
   */
  beforeInstruction?: (index: number, outputs: readonly (readonly RV[])[]) => void;
}

/** Replays `trace` on `sch`; returns the map from the trace's handles to the schedule's. */
export function applyTraceTo(trace: TraceLike, sch: Schedule, opts: ApplyOptions = {}): Map<RV, RV> {
  const rvMap = new Map<RV, RV>();
  const insts = validInstructions(trace.instructions, opts.removePostproc === true);
  const outputsSoFar: (readonly RV[])[] = [];
  const resumed = opts.resume?.outputs ?? [];
  if (resumed.length > insts.length) {
    throw new ScheduleUsageError("apply-trace", `cannot resume after ${resumed.length} instructions of a trace of ${insts.length}`);
  }
  resumed.forEach((outputs, index) => {
    const inst = insts[index]!;
    if (outputs.length !== inst.outputs.length) {
      throw new ScheduleUsageError(
        "apply-trace",
        `resumed with ${outputs.length} handle(s) for instruction ${index} (${inst.kind.name}), which the trace records with ${inst.outputs.length}`,
      );
    }
    inst.outputs.forEach((old, k) => rvMap.set(old, outputs[k]!));
    outputsSoFar.push(outputs);
  });
  insts.forEach((inst, index) => {
    if (index < resumed.length) return;
    opts.beforeInstruction?.(index, outputsSoFar);
    const fail = (cause: TesseraError) => new TraceReplayError(index, inst.kind.name, cause);
    const translate = (x: InstructionInput): InstructionInput => {
      if (isRV(x)) {
        const mapped = rvMap.get(x);
        if (mapped !== undefined) return mapped;
        if (x instanceof LoopRV && (x.isRootMark || x.isInlineMark)) return x;
        throw fail(new TesseraError(`the input ${String(x)} was not produced by an earlier instruction of the trace`));
      }
      return Array.isArray(x) ? x.map(translate) : x;
    };
    const inputs = inst.inputs.map(translate);
    const decision = chooseDecision(opts.decisions, inst, index, trace.decisions.get(inst));
    let outputs: RV[];
    try {
      outputs = sch.invokeKind(inst.kind, inputs, inst.attrs, decision);
    } catch (err) {
      if (err instanceof TesseraError) throw fail(err);
      throw err;
    }
    if (outputs.length !== inst.outputs.length) {
      throw fail(
        new TesseraError(
          `it produced ${outputs.length} handle(s) where the trace recorded ${inst.outputs.length}; the program differs from the one the trace was made on`,
        ),
      );
    }
    inst.outputs.forEach((old, k) => rvMap.set(old, outputs[k]!));
    outputsSoFar.push(outputs);
  });
  return rvMap;
}

function chooseDecision(overrides: DecisionOverrides | undefined, inst: Instruction, index: number, recorded: Decision | undefined): Decision | undefined {
  if (overrides === undefined) return recorded;
  const given = typeof overrides === "function" ? overrides(inst, index, recorded) : overrides.get(index);
  if (given === undefined) return recorded;
  return given === null ? undefined : given;
}
