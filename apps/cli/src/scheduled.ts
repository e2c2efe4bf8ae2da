/**
 * A function of a TVMScript file, optionally scheduled by replaying a trace: what `apply`,
 * `build` and `simulate` start from. The trace is JSON (ours or TVM's) or the text
 * `sch.trace.show()` prints (a trace_submission.ts), told apart by its first character.
 */
import type { PrimFunc } from "@tessera/ir";
import {
  type Decision,
  type Instruction,
  Schedule,
  Trace,
  TraceFormatError,
  TraceReplayError,
  TraceTextError,
  parseTraceText,
  replayTraceCalls,
} from "@tessera/schedule";
import { CliError } from "./errors.js";
import { withFp32PrecisionOption } from "./fp32-precision.js";
import { loadModule, pickFunction, readTextFile } from "./load.js";

export interface ScheduledFunction {
  /** The function's name in the file. */
  readonly name: string;
  /** The function as written in the file (its float32 GEMMs in the requested precision). */
  readonly original: PrimFunc;
  /** The function after the trace (the original when no trace was given). */
  readonly func: PrimFunc;
}

/**
 * The function `name`d in `file` (with `fp32Precision`, its float32 GEMMs rewritten as requested:
 * `--fp32-precision`), then scheduled by the trace.
 */
export async function loadScheduled(
  file: string,
  opts: { trace?: string | undefined; func?: string | undefined; fp32Precision?: string | undefined } = {},
): Promise<ScheduledFunction> {
  const picked = pickFunction(await loadModule(file), file, opts.func);
  const { name } = picked;
  const func = withFp32PrecisionOption(picked.func, opts.fp32Precision);
  if (opts.trace === undefined) return { name, original: func, func };
  const traceFile = opts.trace;
  const traceText = await readTextFile(traceFile);
  // The function is scheduled alone, under the name "main" (what `new Schedule(func)` records).
  const sch = new Schedule(func);
  if (isJSONText(traceText)) {
    const trace = retargetFunctionName(parseTraceJSON(traceFile, traceText), name);
    try {
      trace.applyTo(sch);
    } catch (err) {
      if (err instanceof TraceReplayError) throw new CliError(`${traceFile}: ${err.message}`);
      throw err;
    }
  } else {
    try {
      const calls = parseTraceText(traceText);
      if (calls.length === 0) throw new CliError(`${traceFile}: no schedule call in it: a trace is JSON or the text sch.trace.show() prints`);
      replayTraceCalls(calls, sch, { funcName: name });
    } catch (err) {
      if (err instanceof TraceTextError) throw new CliError(`${traceFile}:${err.message}`);
      throw err;
    }
  }
  return { name, original: func, func: sch.func };
}

/** Lookups recorded against the function's own name (`getBlock(name, "gemm")`) refer to "main" here. */
function retargetFunctionName(trace: Trace, funcName: string): Trace {
  if (funcName === "main") return trace;
  const renamed = new Map<Instruction, Instruction>();
  const instructions = trace.instructions.map((inst) => {
    if (inst.kind.name !== "GetBlock" || inst.attrs[1] !== funcName) return inst;
    const copy: Instruction = { ...inst, attrs: [inst.attrs[0] ?? null, "main"] };
    renamed.set(inst, copy);
    return copy;
  });
  const decisions = new Map<Instruction, Decision>([...trace.decisions].map(([inst, d]) => [renamed.get(inst) ?? inst, d]));
  return new Trace(instructions, decisions);
}

/** JSON traces are an object (ours) or an array (TVM's); anything else is read as show() text. */
function isJSONText(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

function parseTraceJSON(file: string, text: string): Trace {
  try {
    return Trace.fromJSON(text);
  } catch (err) {
    if (err instanceof TraceFormatError) throw new CliError(`${file}: ${err.message}`);
    throw err;
  }
}
