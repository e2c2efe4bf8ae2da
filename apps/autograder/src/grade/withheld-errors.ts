/**
 * Errors of a run that started from a stand-in (the solution's IR): the student's code there can
 * read the solution's schedule, so no text it controls may reach the report. What is shown is
 * grader text, or an error message only when it is exactly one of a few fixed forms that carry no
 * information (the starter's TODO errors, the sandbox's refusals, a missing export); error names
 * only from a fixed list; never a stack, a replay error or stderr.
 */
import type { ErrorInfo, FileRun, SandboxLimits } from "../sandbox/index.js";
import { describeExit } from "./job-failure.js";

const SAFE_MESSAGES: readonly RegExp[] = [
  /^TODO\(task \d+\): [A-Za-z]+ is not implemented yet$/,
  /^a submission may not use Node's "[a-z:/_]+" module$/,
  /^a submission may not call process\.[a-zA-Z]+\(\)$/,
  /^[\w.-]+\.ts (does not export|exports a [a-z]+, not a function, named) `[A-Za-z_$][\w$]*`$/,
];
const SAFE_NAMES: readonly string[] = ["Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "MissingExport"];

/** Why the reason is withheld: "…because the task ran on the reference schedule (…)". */
export function withheldBecause(reference: string): string {
  return `the message is withheld because the task ran ${reference}: what your code throws or prints there could reveal the solution`;
}

/** The error of `call` as the report may show it after a stand-in. */
export function describeErrorOnReference(call: string, error: ErrorInfo, reference: string): string {
  if (error.message.startsWith("TODO(") && SAFE_MESSAGES[0]!.test(error.message)) return `${call} is not implemented yet (it still throws "${error.message}")`;
  const safe = SAFE_NAMES.includes(error.name) && SAFE_MESSAGES.some((m) => m.test(error.message));
  if (!safe) return `${call} did not complete (${withheldBecause(reference)})`;
  if (error.name === "MissingExport") return error.message;
  return `${call} threw ${error.name}: ${error.message} (the stack trace is withheld because the task ran ${reference})`;
}

/** Why a run on the reference schedule stopped before the call reported back: grader text only. */
export function describeExitOnReference(call: string, run: FileRun, limits: SandboxLimits, reference: string): string {
  if (run.exit?.kind === "crashed") return `${call} did not finish: the process crashed (${withheldBecause(reference)})`;
  return `${call} did not finish: ${describeExit(run, limits)}`;
}
