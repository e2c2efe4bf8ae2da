/**
 * A trace: the instructions a schedule ran, in order, with the decisions of sampling instructions
 * (TVM's `Trace`). It prints as a TypeScript `applyTrace` function (`show`), serialises to a
 * versioned JSON format (`toJSON` / `Trace.fromJSON`, which also reads TVM's format), replays on
 * another schedule (`applyTo`), and derives new traces (`withDecision`, `simplified`).
 */
import type { RV } from "../handles.js";
import type { Decision, Instruction } from "../instruction.js";
import type { Schedule } from "../schedule.js";
import { TraceFormatError } from "./errors.js";
import { type TVMTraceJSON, type TraceJSON, parseTraceJSON, traceToJSON, traceToTVMJSON } from "./json.js";
import { validInstructions } from "./kinds.js";
import { type PrintOptions, traceToTypeScript } from "./print.js";
import { type ApplyOptions, applyTraceTo } from "./replay.js";
import { simplifyTrace } from "./simplify.js";

export class Trace {
  constructor(
    readonly instructions: Instruction[] = [],
    readonly decisions: Map<Instruction, Decision> = new Map(),
  ) {}

  append(inst: Instruction, decision?: Decision): void {
    this.instructions.push(inst);
    if (decision !== undefined) this.decisions.set(inst, decision);
  }

  /** Removes and returns the last instruction (and its decision). */
  pop(): Instruction | undefined {
    const inst = this.instructions.pop();
    if (inst !== undefined) this.decisions.delete(inst);
    return inst;
  }

  getDecision(inst: Instruction): Decision | undefined {
    return this.decisions.get(inst);
  }

  copy(): Trace {
    return new Trace([...this.instructions], new Map(this.decisions));
  }

  // ---- printing and JSON ---------------------------------------------------------------------

  /** The trace as a TypeScript function `applyTrace(sch: Schedule): void` (TVM's `show()`). */
  show(opts: PrintOptions = {}): string {
    return traceToTypeScript(this, opts);
  }

  toString(): string {
    return this.show();
  }

  /** The versioned JSON document (`JSON.stringify(trace)` uses it too). */
  toJSON(opts: { removePostproc?: boolean } = {}): TraceJSON {
    return traceToJSON(this, opts);
  }

  /** TVM's own JSON layout `[instructions, decisions]`, for exchanging traces with TVM. */
  toTVMJSON(opts: { removePostproc?: boolean } = {}): TVMTraceJSON {
    return traceToTVMJSON(this, opts);
  }

  /**
   * Reads a trace from our JSON format or TVM's (a JSON text or a parsed value). Throws a
   * `TraceFormatError` naming the instruction and field of the first problem. The handles of
   * the result are placeholders: replay it with `applyTo`.
   */
  static fromJSON(json: unknown): Trace {
    const { instructions, decisions } = parseTraceJSON(json);
    return new Trace(instructions, decisions);
  }

  // ---- replay and derived traces -------------------------------------------------------------

  /**
   * Replays the trace on `sch` (usually a fresh schedule of the same function), mapping the
   * trace's handles to new ones; returns that map. A failing instruction throws a
   * `TraceReplayError` naming the step; the instructions before it stay applied.
   */
  applyTo(sch: Schedule, opts: ApplyOptions = {}): Map<RV, RV> {
    return applyTraceTo(this, sch, opts);
  }

  /**
   * A copy with the decision of one instruction (by index or identity) replaced; `undefined`
   * removes it, so the instruction samples afresh on replay (TVM's `WithDecision`).
   */
  withDecision(instOrIndex: Instruction | number, decision: Decision | undefined, opts: { removePostproc?: boolean } = {}): Trace {
    const insts = [...validInstructions(this.instructions, opts.removePostproc === true)];
    const inst = typeof instOrIndex === "number" ? insts[instOrIndex] : instOrIndex;
    if (inst === undefined || !insts.includes(inst)) {
      const what = typeof instOrIndex === "number" ? `index ${instOrIndex}` : `instruction ${instOrIndex.kind.name}`;
      throw new TraceFormatError("", `withDecision: ${what} is not an instruction of this trace (it has ${insts.length})`);
    }
    const decisions = new Map([...this.decisions].filter(([i]) => insts.includes(i)));
    if (decision === undefined) decisions.delete(inst);
    else decisions.set(inst, decision);
    return new Trace(insts, decisions);
  }

  /** A copy without dead pure instructions (lookups and samplings whose outputs are unused). */
  simplified(opts: { removePostproc?: boolean } = {}): Trace {
    const { instructions, decisions } = simplifyTrace(this, opts.removePostproc === true);
    return new Trace(instructions, decisions);
  }
}
