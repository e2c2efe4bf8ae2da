/**
 * pnpm -F @tessera/autograder bundle-handout-grader --out DIR --assignment NAME --handin FILE
 *
 * Bundles the grader a student handout carries into DIR (handout-grader/bundle.ts), then prints
 * its files, one per line, relative to DIR. An assignment's handout script runs this as a command:
 * an assignment never imports the autograder.
 */
import { parseArgs } from "node:util";
import { bundleHandoutGrader, handoutGraderFiles } from "./handout-grader/bundle.js";

const USAGE = "usage: bundle-handout-grader --out DIR --assignment NAME --handin FILE";

const { values } = parseArgs({ options: { out: { type: "string" }, assignment: { type: "string" }, handin: { type: "string" } } });
const { out, assignment, handin } = values;
if (out === undefined || assignment === undefined || handin === undefined) {
  process.stderr.write(`error: --out, --assignment and --handin are required\n${USAGE}\n`);
  process.exit(1);
}
await bundleHandoutGrader({ outDir: out, assignment, handinScript: handin });
process.stdout.write(`${handoutGraderFiles(out).join("\n")}\n`);
