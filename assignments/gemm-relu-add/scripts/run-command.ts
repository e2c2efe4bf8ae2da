/** Runs a command's body: a known error prints "error: …" and exits 1; anything else is a bug and keeps its stack. */
import { parseArgs } from "node:util";
import { AssignmentCommandError } from "../src/index.js";

export function runCommand(usage: string, body: () => void): void {
  try {
    body();
  } catch (err) {
    reportOrRethrow(usage, err);
  }
}

/** The same for a body that awaits (building a handout packs and bundles). */
export async function runCommandAsync(usage: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    reportOrRethrow(usage, err);
  }
}

function reportOrRethrow(usage: string, err: unknown): void {
  if (err instanceof AssignmentCommandError || isArgumentError(err)) {
    process.stderr.write(`error: ${(err as Error).message}\n${usage}\n`);
    process.exitCode = 1;
    return;
  }
  throw err;
}

/** parseArgs failures (unknown option, missing value) carry an ERR_PARSE_ARGS_* code. */
function isArgumentError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

export { parseArgs };
