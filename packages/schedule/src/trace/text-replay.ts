/**
 * Replays a text trace (see text-parse.ts) on a schedule: each line calls the schedule method it
 * names, with the handles earlier lines bound, so the schedule records the same instructions and
 * decisions as the run that printed the trace. Only the methods of registered instruction kinds
 * can be called. Any failure names its line.
 */
import { TesseraError } from "@tessera/ir";
import { LoopRV } from "../handles.js";
import { allInstructionKinds } from "../instruction.js";
import type { Schedule } from "../schedule.js";
import { TraceTextError } from "./errors.js";
import { HandleRef, MarkRef, ObjectLiteral, type TextValue, type TraceCall, parseTraceText } from "./text-parse.js";

export interface TextReplayOptions {
  /** The function's own name: `getBlock("gemm", NAME)` refers to the schedule's function ("main"). */
  readonly funcName?: string;
}

/** Parses `text` (what `Trace.show()` prints) and replays it on `sch`. Throws TraceTextError naming the line. */
export function applyTraceText(text: string, sch: Schedule, opts: TextReplayOptions = {}): void {
  replayTraceCalls(parseTraceText(text), sch, opts);
}

export function replayTraceCalls(calls: readonly TraceCall[], sch: Schedule, opts: TextReplayOptions = {}): void {
  const methods = new Set(allInstructionKinds().map((k) => k.method));
  const bound = new Map<string, unknown>();
  for (const call of calls) {
    if (!methods.has(call.method)) {
      throw new TraceTextError(
        call.line,
        call.column,
        `unknown schedule method '${call.method}' (a trace calls schedule primitives such as getBlock, split, bind)`,
      );
    }
    let args = call.args.map((a) => resolve(a, bound));
    if (call.method === "getBlock" && args.length === 2 && args[1] === opts.funcName) args = [args[0]];
    let result: unknown;
    try {
      result = (sch as unknown as Record<string, (...a: unknown[]) => unknown>)[call.method]!(...args);
    } catch (err) {
      // The primitive's own message (a ScheduleError shows the IR); any other failure is still about this line.
      const detail = err instanceof TesseraError ? err.message : err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      throw new TraceTextError(call.line, call.column, `sch.${call.method}(…) failed:\n${detail}`);
    }
    bind(call, result, bound);
  }
}

function resolve(value: TextValue, bound: ReadonlyMap<string, unknown>): unknown {
  if (value instanceof HandleRef) {
    if (!bound.has(value.name)) throw new TraceTextError(value.line, value.column, `'${value.name}' is not defined: no earlier line of the trace binds it`);
    return bound.get(value.name);
  }
  if (value instanceof MarkRef) return value.mark === "root" ? LoopRV.ROOT : LoopRV.INLINE;
  if (value instanceof ObjectLiteral) return Object.fromEntries([...value.entries].map(([k, v]) => [k, resolve(v, bound)]));
  if (Array.isArray(value)) return value.map((v: TextValue) => resolve(v, bound));
  return value;
}

function bind(call: TraceCall, result: unknown, bound: Map<string, unknown>): void {
  const { binding } = call;
  if (binding.kind === "single") bound.set(binding.name, result);
  if (binding.kind !== "tuple") return;
  if (!Array.isArray(result) || result.length !== binding.names.length) {
    const got = Array.isArray(result) ? `${result.length} values` : "one value";
    throw new TraceTextError(call.line, call.column, `sch.${call.method} returned ${got}, but the line binds ${binding.names.length} names`);
  }
  binding.names.forEach((name, i) => bound.set(name, result[i]));
}
