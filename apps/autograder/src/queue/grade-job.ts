/**
 * The "grade" job: one submission of a batch, carried whole (its zip, or its folder's files, as
 * base64) so any worker on any machine can grade it, with the settings of the batch. The worker
 * grades with its own copy of the assignment; the manifest's digest makes sure that copy is the
 * dispatcher's (a worker of another version refuses the job rather than grade differently).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { basename, dirname, join, relative, sep } from "node:path";
import { defineJobKind } from "@tessera/queue";
import { z } from "zod";
import type { Submission } from "../batch/discover.js";
import { OutcomeSummarySchema } from "../batch/outcome-store.js";
import type { BatchGradeSettings, SubmissionOutcome } from "../batch/grade-one.js";
import type { Manifest } from "../manifest/index.js";
import { GradescopeResultsSchema } from "../report/gradescope.js";

/** What a submission may weigh in a job (Redis holds it until the job is done). */
export const MAX_SUBMISSION_BYTES = 32 * 1024 * 1024;

/**
 * The largest limits a job may carry (the CLI's own maxima): a grading's timers run for at most
 * 20 times the timeout, which stays below Node's largest timer (2^31 - 1 ms, about 24.8 days).
 */
export const MAX_JOB_TIMEOUT_MS = 24 * 3600 * 1000;
export const MAX_JOB_HEAP_MB = 65536;

const RelativePath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !p.split(/[\\/]/).includes(".."), { message: "must be a relative path inside the submission" });

/** The submission's own file or folder name (grading messages name it). */
const FileName = z
  .string()
  .min(1)
  .refine((p) => !/[\\/]/.test(p) && p !== "." && p !== "..", { message: "must be a plain file name" });

const SubmissionPayloadSchema = z.discriminatedUnion("kind", [
  z.object({ name: FileName, fileName: FileName, kind: z.literal("zip"), base64: z.string() }),
  z.object({ name: FileName, fileName: FileName, kind: z.literal("folder"), files: z.array(z.object({ path: RelativePath, base64: z.string() })) }),
]);

export const GradeJobPayloadSchema = z.object({
  submission: SubmissionPayloadSchema,
  settings: z.object({
    assignment: z.string().min(1),
    manifestDigest: z.string().regex(/^[0-9a-f]{64}$/),
    noGpu: z.boolean(),
    seed: z.number().int().nonnegative().optional(),
    limits: z.object({ timeoutMs: z.number().int().positive().max(MAX_JOB_TIMEOUT_MS), heapMb: z.number().int().positive().max(MAX_JOB_HEAP_MB) }).optional(),
    numerics: z.object({ rounds: z.number().int().positive().optional() }).optional(),
  }),
});

export type GradeJobPayload = z.infer<typeof GradeJobPayloadSchema>;

export const GradeJobResultSchema = z.intersection(OutcomeSummarySchema, z.object({ results: GradescopeResultsSchema, reportText: z.string() }));

export const GRADE_JOB = defineJobKind<GradeJobPayload, SubmissionOutcome>(
  "grade",
  GradeJobPayloadSchema,
  GradeJobResultSchema as z.ZodType<SubmissionOutcome>,
);

export function manifestDigest(manifest: Manifest): string {
  return createHash("sha256").update(JSON.stringify(manifest)).digest("hex");
}

/** The job's payload for `sub`, read from disk. */
export async function gradeJobPayload(sub: Submission, settings: BatchGradeSettings & { readonly noGpu: boolean }): Promise<GradeJobPayload> {
  const submission =
    sub.kind === "zip"
      ? { name: sub.name, fileName: basename(sub.path), kind: "zip" as const, base64: (await readLimited(sub.path, 0)).toString("base64") }
      : await folderPayload(sub);
  return {
    submission,
    settings: {
      assignment: settings.binding.name,
      manifestDigest: manifestDigest(settings.manifest),
      noGpu: settings.noGpu,
      ...(settings.seed === undefined ? {} : { seed: settings.seed }),
      ...(settings.limits === undefined ? {} : { limits: { ...settings.limits } }),
      ...(settings.numerics === undefined ? {} : { numerics: { ...settings.numerics } }),
    },
  };
}

async function readLimited(path: string, sofar: number): Promise<Buffer> {
  const bytes = await readFile(path);
  if (sofar + bytes.length > MAX_SUBMISSION_BYTES)
    throw new RangeError(`${path}: the submission is larger than ${MAX_SUBMISSION_BYTES / 1024 / 1024} MiB, too large for a queue job`);
  return bytes;
}

async function folderPayload(sub: Submission): Promise<GradeJobPayload["submission"]> {
  const files: { path: string; base64: string }[] = [];
  let total = 0;
  const entries = await readdir(sub.path, { recursive: true, withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.parentPath + a.name < b.parentPath + b.name ? -1 : 1))) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readLimited(path, total);
    total += bytes.length;
    files.push({ path: relative(sub.path, path).split(sep).join("/"), base64: bytes.toString("base64") });
  }
  return { name: sub.name, fileName: basename(sub.path), kind: "folder", files };
}

/** Writes the job's submission under `scratch` and returns it as the batch would have found it. */
export async function materializeSubmission(payload: GradeJobPayload["submission"], scratch: string): Promise<Submission> {
  if (payload.kind === "zip") {
    const path = join(scratch, payload.fileName);
    await writeFile(path, Buffer.from(payload.base64, "base64"));
    return { name: payload.name, kind: "zip", path };
  }
  const root = join(scratch, payload.fileName);
  await mkdir(root, { recursive: true });
  for (const file of payload.files) {
    const path = join(root, ...file.path.split("/"));
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, Buffer.from(file.base64, "base64"));
  }
  return { name: payload.name, kind: "folder", path: root };
}
