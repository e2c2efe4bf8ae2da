/**
 * A submission's files in OUT: `<name>/results.json` (for Gradescope), `<name>/report.txt` (for
 * people) and `<name>/outcome.json` (for the batch: its summary row). Each is written atomically
 * and outcome.json last, so its presence means the submission is done: a run killed half-way
 * leaves no outcome.json, and a later run grades that submission again.
 */
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { GradescopeResultsSchema } from "../report/gradescope.js";
import { writeAtomically } from "./atomic-write.js";
import type { OutcomeSummary, SubmissionOutcome } from "./grade-one.js";

export const OUTCOME_FILE = "outcome.json";

const TaskScoreSchema = z.object({ id: z.string(), points: z.number(), maxPoints: z.number() });

export const OutcomeSummarySchema = z.discriminatedUnion("status", [
  z.object({
    name: z.string(),
    seconds: z.number(),
    status: z.literal("graded"),
    score: z.number(),
    maxScore: z.number(),
    tasks: z.array(TaskScoreSchema),
    numerics: z.record(z.string(), z.enum(["pass", "fail", "not-checked"])),
  }),
  z.object({ name: z.string(), seconds: z.number(), status: z.literal("error"), error: z.string() }),
]);

/** How many runs started grading the submission without storing an outcome (OUT/<name>/attempts). */
export const ATTEMPTS_FILE = "attempts";
/** A submission that took the grader down this many times is not graded again (without --force). */
export const MAX_UNFINISHED_ATTEMPTS = 2;

/**
 * Counts one more start of grading the submission and returns how many starts before this one
 * never stored an outcome: the grader died each time (killed, out of memory, the machine failed).
 */
export async function recordAttempt(dir: string, force: boolean): Promise<number> {
  const file = join(dir, ATTEMPTS_FILE);
  let earlier = 0;
  if (!force) {
    try {
      earlier = Math.max(0, Number.parseInt(await readFile(file, "utf8"), 10) || 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
    }
  }
  await writeAtomically(file, `${earlier + 1}\n`);
  return earlier;
}

/** Writes the submission's three files into OUT/<name>/ (which must exist). */
export async function storeOutcome(dir: string, outcome: SubmissionOutcome): Promise<void> {
  // An earlier outcome (graded again with --force) stops counting before its files are replaced.
  await rm(join(dir, OUTCOME_FILE), { force: true });
  await writeAtomically(join(dir, "results.json"), JSON.stringify(GradescopeResultsSchema.parse(outcome.results), null, 2) + "\n");
  await writeAtomically(join(dir, "report.txt"), outcome.reportText);
  await writeAtomically(join(dir, OUTCOME_FILE), JSON.stringify(summaryOf(outcome), null, 2) + "\n");
  await rm(join(dir, ATTEMPTS_FILE), { force: true });
}

/** The plain-data part of an outcome (what outcome.json holds). */
export function summaryOf(outcome: SubmissionOutcome | OutcomeSummary): OutcomeSummary {
  if (outcome.status === "error") return { name: outcome.name, seconds: outcome.seconds, status: "error", error: outcome.error };
  return {
    name: outcome.name,
    seconds: outcome.seconds,
    status: "graded",
    score: outcome.score,
    maxScore: outcome.maxScore,
    tasks: outcome.tasks,
    numerics: outcome.numerics,
  };
}

export type StoredOutcome =
  | { readonly kind: "done"; readonly outcome: OutcomeSummary }
  | { readonly kind: "missing" }
  /** An outcome.json that is not one (edited by hand, another version's): graded again. */
  | { readonly kind: "invalid"; readonly why: string };

/** What OUT/<name>/outcome.json says about submission `name`. */
export async function readStoredOutcome(dir: string, name: string): Promise<StoredOutcome> {
  let text: string;
  try {
    text = await readFile(join(dir, OUTCOME_FILE), "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT" || (err as NodeJS.ErrnoException).code === "ENOTDIR") return { kind: "missing" };
    throw err;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { kind: "invalid", why: `${join(dir, OUTCOME_FILE)} is not JSON (${(err as Error).message})` };
  }
  const parsed = OutcomeSummarySchema.safeParse(json);
  if (!parsed.success) return { kind: "invalid", why: `${join(dir, OUTCOME_FILE)} is not a batch outcome: ${parsed.error.issues[0]?.message ?? "invalid"}` };
  if (parsed.data.name !== name) return { kind: "invalid", why: `${join(dir, OUTCOME_FILE)} is the outcome of "${parsed.data.name}", not of "${name}"` };
  return { kind: "done", outcome: parsed.data };
}
