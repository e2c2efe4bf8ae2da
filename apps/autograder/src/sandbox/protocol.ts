/**
 * Messages between the grader and the sandbox host, the child process that runs student code in a
 * V8 isolate. Jobs go in as a JSON file next to the bundle; results come back as JSON lines on file
 * descriptor 3, written by the host alone. The grader validates every message with these schemas
 * and trusts a result no further than "a trace to replay".
 */
import { z } from "zod";

/** A positional argument of a student function after `sch`: a number, or a block looked up by name. */
export const JobArgSchema = z.union([z.number(), z.object({ block: z.string().min(1) }).strict()]);
export type JobArg = z.infer<typeof JobArgSchema>;

/** What the schedule starts from: a function as TVMScript (the workload, or an already scheduled one). */
export const JobStartSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("script"), script: z.string().min(1) }).strict(),
  /** Continue on the schedule the previous job left (it must have succeeded). */
  z.object({ kind: z.literal("previous") }).strict(),
]);
export type JobStart = z.infer<typeof JobStartSchema>;

export const JobSchema = z
  .object({
    id: z.string().min(1),
    /** The exported function to call with `(sch, ...args)`. */
    call: z.string().min(1),
    start: JobStartSchema,
    args: z.array(JobArgSchema),
    /** Seed of the schedule's random engine (sampling instructions). */
    seed: z.number().int().optional(),
  })
  .strict();
export type Job = z.infer<typeof JobSchema>;

export const JobListSchema = z.array(JobSchema);

const ErrorInfoSchema = z.object({
  name: z.string(),
  message: z.string(),
  /** Stack frames in the student's files only (source-mapped). */
  stack: z.string().optional(),
});
export type ErrorInfo = z.infer<typeof ErrorInfoSchema>;

export const JobResultSchema = z.discriminatedUnion("ok", [
  z
    .object({
      id: z.string(),
      ok: z.literal(true),
      /** The schedule's trace (our JSON trace format), validated again by Trace.fromJSON. */
      trace: z.unknown(),
      /** Names of blocks the function returned, when it returned block handles. */
      returnedBlocks: z.array(z.string()).optional(),
      millis: z.number(),
    })
    .strict(),
  z
    .object({
      id: z.string(),
      ok: z.literal(false),
      error: ErrorInfoSchema,
      /** The trace up to the failure, if any instruction ran. */
      trace: z.unknown().optional(),
      millis: z.number(),
    })
    .strict(),
]);
export type JobResult = z.infer<typeof JobResultSchema>;

/** The first line the child sends once the student module is loaded (or failed to load). */
export const LoadMessageSchema = z.discriminatedUnion("loaded", [
  z.object({ loaded: z.literal(true), exports: z.array(z.string()) }).strict(),
  z.object({ loaded: z.literal(false), error: ErrorInfoSchema }).strict(),
]);
export type LoadMessage = z.infer<typeof LoadMessageSchema>;

/** The largest code cache a host may send (V8's cache of the 1.4 MB runtime is about 0.5 MB). */
const MAX_RUNTIME_CACHE_BASE64 = 8 * 1024 * 1024;

/** The most printed output a run-end may carry per stream (the host keeps 64 KiB and a closing line). */
const MAX_RUN_OUTPUT_CHARS = 128 * 1024;

export const ChildMessageSchema = z.union([
  z.object({ type: z.literal("load"), body: LoadMessageSchema }).strict(),
  z.object({ type: z.literal("result"), body: JobResultSchema }).strict(),
  z.object({ type: z.literal("done") }).strict(),
  /** The host stopped the isolate: the run's deadline passed, or the isolate ran out of memory. */
  z.object({ type: z.literal("stopped"), reason: z.enum(["timeout", "out-of-memory"]) }).strict(),
  /**
   * How the host compiled the sandbox runtime, sent before the student's code runs: with the code
   * cache it was given (accepted or rejected), or producing one (`data`, base64) for later runs.
   */
  z
    .object({
      type: z.literal("runtime-compiled"),
      cache: z.enum(["produced", "accepted", "rejected", "none"]),
      data: z.string().max(MAX_RUNTIME_CACHE_BASE64).optional(),
    })
    .strict(),
  /**
   * The run is over and the host waits for the next: what the run printed (the host keeps at most
   * OUTPUT_LIMIT_CHARS of it) and the CPU time the host process has used so far, in ms.
   */
  z
    .object({
      type: z.literal("run-end"),
      stdout: z.string().max(MAX_RUN_OUTPUT_CHARS),
      stderr: z.string().max(MAX_RUN_OUTPUT_CHARS),
      cpuMs: z.number().nonnegative(),
    })
    .strict(),
  /** The host itself failed (a grader bug, never the student's doing). */
  z.object({ type: z.literal("fault"), message: z.string() }).strict(),
]);
export type ChildMessage = z.infer<typeof ChildMessageSchema>;
