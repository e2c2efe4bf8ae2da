/**
 * A worker's result is checked against the job it was given before the batch records it: a
 * worker (rogue, or of another version) cannot award more than the manifest allows, nor name
 * another submission. Scores must lie in [0, maximum] per task and in total, for the outcome and
 * for its results.json alike.
 */
import type { SubmissionOutcome } from "../batch/grade-one.js";
import type { Manifest } from "../manifest/index.js";

/** Rounding slack of sums of fractional points. */
const EPSILON = 1e-9;

function withinRange(value: number, max: number): boolean {
  return Number.isFinite(value) && value >= 0 && value <= max + EPSILON;
}

/** Why the outcome a worker returned for submission `name` cannot be the job's, or undefined. */
export function gradeResultProblem(outcome: SubmissionOutcome, name: string, manifest: Manifest): string | undefined {
  if (outcome.name !== name) return `it is the outcome of ${JSON.stringify(outcome.name)}, not of ${JSON.stringify(name)}`;
  const total = manifest.totalPoints;
  const { results } = outcome;
  if (!withinRange(results.score, total)) return `results.json's score ${results.score} is outside [0, ${total}]`;
  let testMax = 0;
  for (const test of results.tests) {
    if (!withinRange(test.score, test.max_score)) return `results.json's test "${test.name}" scores ${test.score} of ${test.max_score}`;
    testMax += test.max_score;
  }
  if (testMax > total + EPSILON) return `results.json's tests are worth ${testMax} points, more than the manifest's ${total}`;
  if (outcome.status === "error") return undefined;
  if (!withinRange(outcome.maxScore, total)) return `its maximum score ${outcome.maxScore} is outside [0, ${total}]`;
  if (!withinRange(outcome.score, outcome.maxScore)) return `its score ${outcome.score} is outside [0, ${outcome.maxScore}]`;
  const seen = new Set<string>();
  let sum = 0;
  for (const task of outcome.tasks) {
    const inManifest = manifest.tasks.find((t) => t.id === task.id);
    if (inManifest === undefined) return `it scores task "${task.id}", which the manifest does not have`;
    if (seen.has(task.id)) return `it scores task "${task.id}" twice`;
    seen.add(task.id);
    if (!withinRange(task.maxPoints, inManifest.points)) return `task "${task.id}" is worth ${task.maxPoints}, outside [0, ${inManifest.points}]`;
    if (!withinRange(task.points, task.maxPoints)) return `task "${task.id}" scores ${task.points}, outside [0, ${task.maxPoints}]`;
    sum += task.points;
  }
  // The score is the sum rounded to hundredths (grade-submission.ts).
  if (Math.abs(sum - outcome.score) > 0.01) return `its score ${outcome.score} is not the sum of its tasks' points (${sum})`;
  return undefined;
}
