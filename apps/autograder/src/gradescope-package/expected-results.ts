/**
 * What a Gradescope results.json must say for the two reference submissions: the starter files
 * score 0, the instructor solution scores every point that a machine without a GPU can award.
 * Used by the debootstrap check of the package (scripts/gradescope-debootstrap.sh).
 */
import type { Manifest } from "../manifest/schema.js";
import { GradescopeResultsSchema } from "../report/gradescope.js";

export type ReferenceSubmission = "starter" | "solution";

/** Points only a GPU run can award: the timing checks (skipped, neither awarded nor lost, without one). */
export function gpuOnlyPoints(manifest: Manifest): number {
  return manifest.tasks.flatMap((t) => t.checks).reduce((sum, c) => sum + (c.kind === "tuned-time" ? c.points : 0), 0);
}

/** The score a results.json written without a GPU must show for `submission`. */
export function expectedScore(manifest: Manifest, submission: ReferenceSubmission): number {
  return submission === "starter" ? 0 : manifest.totalPoints - gpuOnlyPoints(manifest);
}

/** Everything wrong with `results` (parsed JSON) for `submission`; empty when it is as expected. */
export function resultsProblems(results: unknown, manifest: Manifest, submission: ReferenceSubmission): string[] {
  const parsed = GradescopeResultsSchema.safeParse(results);
  if (!parsed.success)
    return [`not a valid Gradescope results.json: ${parsed.error.issues.map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`).join("; ")}`];
  const r = parsed.data;
  const problems: string[] = [];
  if (r.tests.length === 0) problems.push(`no tests: the grader did not grade (its output: ${JSON.stringify(r.output.slice(0, 400))})`);
  const testSum = Math.round(r.tests.reduce((s, t) => s + t.score, 0) * 100) / 100;
  if (Math.abs(testSum - r.score) > 1e-6) problems.push(`score ${r.score} is not the sum of the tests' scores (${testSum})`);
  const expected = expectedScore(manifest, submission);
  if (Math.abs(r.score - expected) > 1e-6) {
    const lost = r.tests.filter((t) => t.score < t.max_score).map((t) => `${t.name} ${t.score}/${t.max_score}`);
    problems.push(`the ${submission} scored ${r.score}, expected ${expected}${lost.length > 0 ? ` (short of full marks: ${lost.join(", ")})` : ""}`);
  }
  if (submission === "solution") {
    // Without a GPU the timing is not graded: such a test has no status, but none may fail.
    const failed = r.tests.filter((t) => t.status === "failed").map((t) => t.name);
    if (failed.length > 0) problems.push(`the solution failed ${failed.join(", ")}`);
  }
  return problems;
}
