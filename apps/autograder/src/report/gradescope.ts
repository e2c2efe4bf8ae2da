/**
 * Gradescope's results.json (https://gradescope-autograders.readthedocs.io/en/latest/specs/):
 * a total score, per-test scores with output and visibility, and the execution time. Written
 * through a schema so a malformed result can never reach Gradescope.
 */
import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { writeAtomically } from "../batch/atomic-write.js";

export const VisibilitySchema = z.enum(["hidden", "after_due_date", "after_published", "visible"]);

export const GradescopeTestSchema = z
  .object({
    name: z.string().min(1),
    score: z.number().min(0),
    max_score: z.number().min(0),
    /** Left out where neither fits: a 0-point check that passed, a task not graded in this run (see to-gradescope.ts). */
    status: z.enum(["passed", "failed"]).optional(),
    output: z.string(),
    visibility: VisibilitySchema,
  })
  .strict()
  .refine((t) => t.score <= t.max_score + 1e-9, { message: "a test scores more than its maximum" });

export const GradescopeResultsSchema = z
  .object({
    score: z.number().min(0),
    execution_time: z.number().min(0),
    output: z.string(),
    visibility: VisibilitySchema,
    stdout_visibility: VisibilitySchema,
    tests: z.array(GradescopeTestSchema),
  })
  .strict();

export type GradescopeTest = z.infer<typeof GradescopeTestSchema>;
export type GradescopeResults = z.infer<typeof GradescopeResultsSchema>;

export function gradescopeResults(tests: readonly GradescopeTest[], output: string, executionSeconds: number): GradescopeResults {
  const score = Math.round(tests.reduce((s, t) => s + t.score, 0) * 100) / 100;
  return GradescopeResultsSchema.parse({
    score,
    execution_time: Math.round(executionSeconds * 100) / 100,
    output,
    visibility: "visible",
    stdout_visibility: "hidden",
    tests: [...tests],
  });
}

/** The result Gradescope gets when grading itself failed: score 0 and the reason, never a missing file. */
export function failureResults(reason: string, executionSeconds: number): GradescopeResults {
  return gradescopeResults(
    [],
    `The autograder could not finish grading this submission.\n${reason}\nNo points were awarded; please contact the course staff if this looks wrong.`,
    executionSeconds,
  );
}

/** Writes results.json atomically, replacing (never following) a link the submission may have put there. */
export async function writeResults(path: string, results: GradescopeResults): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeAtomically(path, JSON.stringify(GradescopeResultsSchema.parse(results), null, 2) + "\n");
}

/**
 * Before grading starts, results.json already says "not finished, 0 points": a results.json the
 * submission brought (or an earlier run left) is never taken for this run's result, even when the
 * grader is killed before it writes its own.
 */
export async function claimResultsFile(path: string): Promise<void> {
  await writeResults(path, failureResults("The grader stopped before it finished (it was killed, or the machine failed).", 0));
}
