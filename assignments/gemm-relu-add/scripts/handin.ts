/**
 * pnpm handin [--dir <assignment-dir>] [--out <zip>]
 *
 * Writes handin.zip with gemm_relu_add.ts, trace_submission.ts and feedback.txt at its root.
 */
import { AssignmentCommandError, createHandin } from "../src/index.js";
import { parseArgs, runCommand } from "./run-command.js";

const USAGE = "usage: pnpm handin [--dir <assignment-dir>] [--out <zip>]";

runCommand(USAGE, () => {
  const { values, positionals } = parseArgs({
    options: { dir: { type: "string" }, out: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new AssignmentCommandError(`unexpected argument ${positionals[0] ?? ""}`);
  const { archive, files } = createHandin({ root: values.dir, out: values.out });
  process.stdout.write(`wrote ${archive}:\n${files.map((f) => `  ${f}\n`).join("")}`);
});
