/**
 * Prints a trace as a TypeScript function over the `Schedule` API (TVM's `Trace.show()`, which
 * prints Python). The text type-checks against `@tessera/schedule` once pasted into a file:
 *
 *   import type { Schedule } from "@tessera/schedule";
 *
 *   export function applyTrace(sch: Schedule): void {
 *     const b0 = sch.getBlock("gemm");
 *     const [l1, l2, l3] = sch.getLoops(b0);
 *     const [v4, v5] = sch.samplePerfectTile(l1, 2, 64, [8, 8]);
 *     ...
 *   }
 *
 * Each kind renders its own arguments (`InstructionKind.formatArgs`); sampling kinds append their
 * decision as the last argument.
 */
import { isRV } from "../handles.js";
import type { Instruction, InstructionInput, RenderedInput } from "../instruction.js";
import { TraceFormatError } from "./errors.js";
import { isPostprocMarker, validInstructions } from "./kinds.js";
import { INLINE_MARK_NAME, ROOT_MARK_NAME, TraceNames, undefinedHandleMessage } from "./names.js";
import type { TraceLike } from "./trace-like.js";

export interface PrintOptions {
  /** Stop at TVM's EnterPostproc marker. */
  removePostproc?: boolean;
  /** Name of the exported function (default "applyTrace"). */
  functionName?: string;
}

export function traceToTypeScript(trace: TraceLike, opts: PrintOptions = {}): string {
  const names = new TraceNames();
  const lines: string[] = [];
  let usesLoopRV = false;
  validInstructions(trace.instructions, opts.removePostproc === true).forEach((inst, index) => {
    if (isPostprocMarker(inst.kind)) {
      lines.push("  // enterPostproc: the instructions below are postprocessing");
      return;
    }
    const render = (x: InstructionInput): RenderedInput => {
      if (isRV(x)) {
        const name = names.nameOf(x);
        if (name === undefined) throw new TraceFormatError(`instructions[${index}]`, undefinedHandleMessage(x, index, inst));
        if (name === ROOT_MARK_NAME || name === INLINE_MARK_NAME) usesLoopRV = true;
        return name;
      }
      if (Array.isArray(x)) return x.map(render);
      if (x === null) return "null";
      return typeof x === "string" ? JSON.stringify(x) : String(x);
    };
    const inputs = inst.inputs.map(render);
    const call = `sch.${inst.kind.method}(${inst.kind.formatArgs(inputs, inst.attrs, trace.decisions.get(inst))});`;
    lines.push(`  ${bind(inst, names.define(inst.outputs))}${call}`);
  });
  const header = usesLoopRV ? 'import { LoopRV, type Schedule } from "@tessera/schedule";' : 'import type { Schedule } from "@tessera/schedule";';
  const fn = opts.functionName ?? "applyTrace";
  return `${header}\n\nexport function ${fn}(sch: Schedule): void {\n${lines.map((l) => `${l}\n`).join("")}}\n`;
}

function bind(inst: Instruction, outputs: readonly string[]): string {
  if (outputs.length === 0) return "";
  if (outputs.length === 1 && inst.kind.singleOutput) return `const ${outputs[0]} = `;
  return `const [${outputs.join(", ")}] = `;
}
