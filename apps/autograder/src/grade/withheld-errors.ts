/**
 * Errors of a run that started from a stand-in (the solution's IR): the student's code there can
 * read the solution's schedule, so no text it controls may reach the report. What is shown is
 * grader text, or an error message only when it is exactly one of a few fixed forms that carry no
 * information (the starter's TODO errors, what the sandbox lacks, a missing export); error names
 * only from a fixed list; never a stack, a replay error or stderr.
 */
import type { ErrorInfo, FileRun, SandboxLimits } from "../sandbox/index.js";
import { describeExit } from "./job-failure.js";

/**
 * The messages a run on a stand-in may show: exact texts, each a function of the call alone. A
 * pattern with free text in it (a module name, an identifier, a file name) would be a channel for
 * student code that reads the solution's schedule and throws a message that happens to match.
 */
function safeMessages(call: string, file: string): ReadonlySet<string> {
  return new Set([
    // The starter's TODO errors (a single-digit task number).
    ...Array.from({ length: 9 }, (_, k) => `TODO(task ${k + 1}): ${call} is not implemented yet`),
    // What the sandbox's isolate lacks.
    ...["process", "require", "Buffer", "setTimeout", "setInterval", "setImmediate", "fetch", "module", "__dirname"].map((name) => `${name} is not defined`),
    "code generation from strings is not available in the grading sandbox",
    // The harness: the export is missing or not a function.
    `${file} does not export \`${call}\``,
    ...["string", "number", "bigint", "boolean", "symbol", "undefined", "object"].map((t) => `${file} exports a ${t}, not a function, named \`${call}\``),
  ]);
}
const SAFE_NAMES: readonly string[] = ["Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError", "EvalError", "MissingExport"];

/** Why the reason is withheld: "…because the task ran on the reference schedule (…)". */
export function withheldBecause(reference: string): string {
  return `the message is withheld because the task ran ${reference}: what your code throws or prints there could reveal the solution`;
}

/** The error of `call` as the report may show it after a stand-in. */
/** `file` is the student's file that defines `call`. */
export function describeErrorOnReference(call: string, file: string, error: ErrorInfo, reference: string): string {
  const safe = SAFE_NAMES.includes(error.name) && safeMessages(call, file).has(error.message);
  if (safe && error.message.startsWith("TODO(")) return `${call} is not implemented yet (it still throws "${error.message}")`;
  if (!safe) return `${call} did not complete (${withheldBecause(reference)})`;
  if (error.name === "MissingExport") return error.message;
  return `${call} threw ${error.name}: ${error.message} (the stack trace is withheld because the task ran ${reference})`;
}

/** Why a run on the reference schedule stopped before the call reported back: grader text only. */
export function describeExitOnReference(call: string, run: FileRun, limits: SandboxLimits, reference: string): string {
  if (run.exit?.kind === "crashed") return `${call} did not finish: the process crashed (${withheldBecause(reference)})`;
  return `${call} did not finish: ${describeExit(run, limits)}`;
}
