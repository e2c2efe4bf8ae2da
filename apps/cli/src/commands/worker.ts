/**
 * `tessera worker --redis URL [--gpu N] [--concurrency K]`: a worker of the job queue, which
 * grades submissions and measures tuning candidates for dispatchers anywhere (the autograder's
 * `tessera-grade worker`, which knows both kinds of job).
 */
import { parseWorkerArgs, runWorkerCommand } from "@tessera/autograder";
import { CliError } from "../errors.js";
import type { CliIO } from "../io.js";


export async function run(args: readonly string[], io: CliIO): Promise<number> {
  let inv;
  try {
    inv = parseWorkerArgs(args);
  } catch (err) {
    // The autograder's UsageError: a mistake in the command line.
    if (err instanceof Error && err.name === "UsageError") throw new CliError(err.message);
    throw err;
  }
  return runWorkerCommand(inv, { stdout: (t) => io.stdout(t), stderr: (t) => io.stderr(t), interactive: false });
}
