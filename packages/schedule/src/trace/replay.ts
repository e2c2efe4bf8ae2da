/**
 * Replaying a trace on a schedule (TVM's `Trace::ApplyToSchedule`): every instruction runs again
 * through `Schedule.invokeKind`, with its input handles mapped from the trace's handles to the
 * ones the new schedule produced, and with the recorded decision unless the caller overrides it.
 */
import { TesseraError } from "@tessera/ir";
import { LoopRV, type RV, isRV } from "../handles.js";
import type { Decision, Instruction, InstructionInput } from "../instruction.js";
import type { Schedule } from "../schedule.js";
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
}

/** Replays `trace` on `sch`; returns the map from the trace's handles to the schedule's. */
export function applyTraceTo(trace: TraceLike, sch: Schedule, opts: ApplyOptions = {}): Map<RV, RV> {
  const rvMap = new Map<RV, RV>();
  validInstructions(trace.instructions, opts.removePostproc === true).forEach((inst, index) => {
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
  });
  return rvMap;
}

function chooseDecision(overrides: DecisionOverrides | undefined, inst: Instruction, index: number, recorded: Decision | undefined): Decision | undefined {
  if (overrides === undefined) return recorded;
  const given = typeof overrides === "function" ? overrides(inst, index, recorded) : overrides.get(index);
  if (given === undefined) return recorded;
  return given === null ? undefined : given;
}
