import { parseArgs } from "node:util";
import { printTVMScript } from "@tessera/ir";
import { type Decision, type Instruction, Schedule, Trace, TraceFormatError, TraceReplayError } from "@tessera/schedule";
import { CliError } from "../errors.js";
import type { CliIO } from "../io.js";
import { loadModule, pickFunction, readTextFile } from "../load.js";

const USAGE = "usage: tessera apply FILE --trace TRACE.json [--func NAME]";

/**
 * `tessera apply FILE --trace TRACE.json [--func NAME]`: replay a schedule trace (our JSON format
 * or TVM's) on a function of a TVMScript file and print the scheduled function.
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: { trace: { type: "string" }, func: { type: "string" } },
  });
  if (positionals.length !== 1 || values.trace === undefined) throw new CliError(USAGE);
  const file = positionals[0]!;
  const traceFile = values.trace;
  const { name, func } = pickFunction(await loadModule(file), file, values.func);
  const trace = retargetFunctionName(await loadTrace(traceFile), name);
  // The function is scheduled alone, under the name "main" (what `new Schedule(func)` records).
  const sch = new Schedule(func);
  try {
    trace.applyTo(sch);
  } catch (err) {
    if (err instanceof TraceReplayError) throw new CliError(`${traceFile}: ${err.message}`);
    throw err;
  }
  io.stdout(printTVMScript(sch.func, { funcName: name }));
  return 0;
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

async function loadTrace(file: string): Promise<Trace> {
  const text = await readTextFile(file);
  try {
    return Trace.fromJSON(text);
  } catch (err) {
    if (err instanceof TraceFormatError) throw new CliError(`${file}: ${err.message}`);
    throw err;
  }
}
