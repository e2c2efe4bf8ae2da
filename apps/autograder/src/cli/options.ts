/** Option parsing shared by the tessera-grade commands. */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { type AssignmentBinding, DEFAULT_ASSIGNMENT, assignmentBinding, assignmentNames } from "../assignment.js";
import { DEFAULT_LIMITS, type SandboxLimits } from "../sandbox/index.js";
import { UsageError } from "./command.js";

/** The parseArgs specs of the options every grading command takes. */
export const RUN_OPTIONS = {
  assignment: { type: "string" },
  "no-gpu": { type: "boolean" },
  seed: { type: "string" },
  timeout: { type: "string" },
  memory: { type: "string" },
} as const;

/** Help lines of RUN_OPTIONS (`--seed` is described by each command). */
export const RUN_OPTIONS_HELP = [
  `  --assignment NAME  the assignment graded (default: ${DEFAULT_ASSIGNMENT}; known: ${assignmentNames().join(", ")})`,
  "  --timeout S        time limit per sandboxed run in seconds (default 60)",
  "  --memory MB        heap limit of the sandboxed process (default 1024)",
].join("\n");

/** The binding `--assignment NAME` in `args` names, or the default assignment's; an unknown name is a usage error. */
export function chosenAssignment(args: readonly string[]): AssignmentBinding {
  const { values } = parseArgs({ args: [...args], strict: false, allowPositionals: true, options: { assignment: { type: "string" } } });
  const name = values.assignment;
  if (name === undefined) return assignmentBinding(DEFAULT_ASSIGNMENT);
  if (typeof name !== "string" || !assignmentNames().includes(name)) {
    throw new UsageError(`--assignment ${String(name)}: no such assignment (known: ${assignmentNames().join(", ")})`);
  }
  return assignmentBinding(name);
}

/** An integer option in [min, max], or `fallback` when absent. */
export function integerOption(name: string, text: string | undefined, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    throw new UsageError(`${name} must be an integer ${range}, got "${text}"`);
  }
  return n;
}

/** `--timeout S` and `--memory MB` as sandbox limits. */
export function sandboxLimitOptions(values: { readonly timeout?: string | undefined; readonly memory?: string | undefined }): SandboxLimits {
  return {
    timeoutMs: integerOption("--timeout", values.timeout, DEFAULT_LIMITS.timeoutMs / 1000, 1, 24 * 3600) * 1000,
    heapMb: integerOption("--memory", values.memory, DEFAULT_LIMITS.heapMb, 64, 65536),
  };
}

/**
 * A path the user typed, resolved against the folder they typed it in: `pnpm grade` runs in the
 * repository root, and pnpm keeps the original folder in INIT_CWD.
 */
export function userPath(path: string): string {
  return resolve(process.env["INIT_CWD"] ?? process.cwd(), path);
}
