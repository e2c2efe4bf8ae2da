/**
 * The handout's grader, bundled by the autograder's `bundle-handout-grader` command (run as a
 * process: an assignment never imports the autograder). It holds no solution: the bundle takes
 * binding/handout-solution.ts where the binding imports ../solution/index.js.
 */
import { join, resolve } from "node:path";
import { execa } from "execa";
import { ASSIGNMENT_NAME } from "../../src/index.js";

const ASSIGNMENT_ROOT = resolve(import.meta.dirname, "..", "..");
const REPO_ROOT = resolve(ASSIGNMENT_ROOT, "..", "..");
const COMMAND = join(REPO_ROOT, "apps", "autograder", "scripts", "bundle-handout-grader.ts");

/** Writes the grader into `outDir`; returns its files relative to `outDir`. */
export async function bundleGrader(outDir: string): Promise<string[]> {
  const tsx = join(REPO_ROOT, "node_modules", ".bin", "tsx");
  const args = [
    "--conditions=@tessera/source",
    COMMAND,
    "--out",
    outDir,
    "--assignment",
    ASSIGNMENT_NAME,
    "--handin",
    join(ASSIGNMENT_ROOT, "scripts", "handin.ts"),
  ];
  const run = await execa(tsx, args, { cwd: REPO_ROOT, reject: false, all: true });
  if (run.exitCode !== 0) throw new Error(`bundling the handout's grader failed (exit ${String(run.exitCode)}):\n${run.all}`);
  return run.stdout.split("\n").filter((line) => line !== "");
}
