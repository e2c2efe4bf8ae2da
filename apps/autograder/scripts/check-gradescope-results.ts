/**
 * Checks a results.json written by the Gradescope package for one of the reference submissions:
 * `tsx check-gradescope-results.ts RESULTS.json starter|solution [MANIFEST.json]`. Prints the
 * score and OK, or each problem; exit status 0 only when the results are as expected.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { type ReferenceSubmission, expectedScore, resultsProblems } from "../src/gradescope-package/expected-results.js";
import { loadManifest } from "../src/manifest/index.js";

const DEFAULT_MANIFEST = "assignments/gemm-relu-add/grading/manifest.json";

async function main(): Promise<number> {
  const [resultsPath, submission, manifestPath = DEFAULT_MANIFEST] = process.argv.slice(2);
  if (resultsPath === undefined || (submission !== "starter" && submission !== "solution")) {
    console.error("usage: check-gradescope-results.ts RESULTS.json starter|solution [MANIFEST.json]");
    return 2;
  }
  const manifest = loadManifest(resolve(manifestPath));
  let results: unknown;
  try {
    results = JSON.parse(await readFile(resultsPath, "utf8"));
  } catch (err) {
    console.error(`${resultsPath}: FAIL: cannot read it as JSON (${err instanceof Error ? err.message : String(err)})`);
    return 1;
  }
  const problems = resultsProblems(results, manifest, submission as ReferenceSubmission);
  const score = (results as { score?: unknown }).score;
  if (problems.length > 0) {
    console.error(`${resultsPath}: FAIL (${submission}, score ${String(score)}):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    return 1;
  }
  console.log(`${resultsPath}: OK (${submission}: score ${String(score)}, expected ${expectedScore(manifest, submission as ReferenceSubmission)})`);
  return 0;
}

process.exitCode = await main();
