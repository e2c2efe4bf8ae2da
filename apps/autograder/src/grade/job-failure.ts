/**
 * Student-facing explanations of why a sandboxed call produced no trace: the file did not build
 * or import, the function threw, or the process was stopped (time or memory limit, crash).
 * Whatever of it the student's code controls (messages, names, stacks, stderr, the source lines in
 * compiler messages) is escaped and capped (report/student-text.ts).
 */
import { studentMessage } from "../report/student-text.js";
import type { ErrorInfo, FileLoad, FileRun, SandboxLimits } from "../sandbox/index.js";

/** Starter functions throw errors whose message starts with this (see the assignment's metadata). */
const NOT_IMPLEMENTED_PREFIX = "TODO(";

export function describeLoadFailure(file: string, load: Exclude<FileLoad, { ok: true }>, run: FileRun, limits: SandboxLimits): string {
  switch (load.stage) {
    case "build":
      return `${file} could not be compiled:\n${load.diagnostics.map((d) => `  ${studentMessage(d)}`).join("\n")}`;
    case "import":
      return `importing ${file} threw ${formatError(load.error)}`;
    case "sandbox":
      return `${file} did not load: ${describeExit(run, limits)}`;
  }
}

export function describeJobError(call: string, error: ErrorInfo): string {
  if (error.message.startsWith(NOT_IMPLEMENTED_PREFIX)) return `${call} is not implemented yet (it still throws "${studentMessage(error.message)}")`;
  if (error.name === "MissingExport") return studentMessage(error.message);
  return `${call} threw ${formatError(error)}`;
}

/** Why a run stopped before a call reported back. */
export function describeExit(run: FileRun, limits: SandboxLimits): string {
  const exit = run.exit;
  switch (exit?.kind) {
    case "timeout":
      return `it was stopped after the time limit of ${Math.round(exit.afterMs / 1000)} s (an infinite loop?)`;
    case "out-of-memory":
      return `it ran out of memory (the limit is ${limits.heapMb} MB)`;
    case "crashed":
      return `the process crashed (${exit.signal ?? `exit code ${exit.code ?? "unknown"}`})${lastLine(run.stderr)}`;
    case "ended-early":
      return "the process ended before the call returned (did the code stop the event loop?)";
    case "finished":
    case undefined:
      return "the call never reported back";
  }
}

function formatError(error: ErrorInfo): string {
  const stack =
    error.stack === undefined
      ? ""
      : `\n${studentMessage(error.stack)
          .split("\n")
          .map((l) => `    ${l.trim()}`)
          .join("\n")}`;
  // A message's further lines are indented, so none of them can pass for a line of the report.
  const message = studentMessage(error.message).replaceAll("\n", "\n    ");
  return `${studentMessage(error.name, 100)}: ${message}${stack}`;
}

function lastLine(stderr: string): string {
  const line = stderr.trim().split("\n").pop()?.trim();
  return line === undefined || line === "" ? "" : `: ${studentMessage(line, 300)}`;
}
