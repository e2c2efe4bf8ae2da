/**
 * pnpm handout <target-dir> [--force]
 *
 * Writes the student handout (the assignment without solution/ and tests) into <target-dir>,
 * which must be empty or absent unless --force.
 */
import { AssignmentCommandError, writeHandout } from "../src/index.js";
import { parseArgs, runCommand } from "./run-command.js";

const USAGE = "usage: pnpm handout <target-dir> [--force]";

runCommand(USAGE, () => {
  const { values, positionals } = parseArgs({ options: { force: { type: "boolean" } }, allowPositionals: true });
  const [target, ...extra] = positionals;
  if (target === undefined || extra.length > 0) throw new AssignmentCommandError("expected exactly one target folder");
  const files = writeHandout(target, { force: values.force === true });
  process.stdout.write(`wrote ${files.length} files to ${target}:\n${files.map((f) => `  ${f}\n`).join("")}`);
});
