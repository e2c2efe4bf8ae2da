/**
 * pnpm handin [--dir <assignment-dir>] [--out <zip>]
 *
 * Writes handin.zip with gemm_relu_add.ts, trace_submission.ts and feedback.txt at its root.
 * Warns (and still writes the zip: students run it non-interactively) when a task still throws
 * its TODO error or trace_submission.ts is the starter's.
 */
import { AssignmentCommandError, type UnfinishedWork, createHandin } from "../src/index.js";
import { parseArgs, runCommand } from "./run-command.js";

const USAGE = "usage: pnpm handin [--dir <assignment-dir>] [--out <zip>]";

runCommand(USAGE, () => {
  const { values, positionals } = parseArgs({
    options: { dir: { type: "string" }, out: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new AssignmentCommandError(`unexpected argument ${positionals[0] ?? ""}`);
  const { archive, files, unfinished } = createHandin({ root: values.dir, out: values.out });
  process.stdout.write(`wrote ${archive}:\n${files.map((f) => `  ${f}\n`).join("")}`);
  if (unfinished.length > 0) process.stderr.write(unfinishedWarning(unfinished));
});

function unfinishedWarning(unfinished: readonly UnfinishedWork[]): string {
  const lines = unfinished.map((u) => `  ${u.file}: ${u.message}\n`).join("");
  return `warning: this hand-in looks unfinished:\n${lines}The zip was written anyway; hand it in once these are done (you can hand in as often as you like).\n`;
}
