/**
 * A kind of job ("grade", "measure"): its name and the zod schemas of its payload and result.
 * Dispatcher and worker share the definition; the worker checks every payload against it (a
 * malformed one goes to the dead-letter queue with the reason) and the dispatcher every result.
 */
import type { z } from "zod";

export interface JobKind<P, R> {
  readonly name: string;
  readonly payload: z.ZodType<P>;
  readonly result: z.ZodType<R>;
}

export function defineJobKind<P, R>(name: string, payload: z.ZodType<P>, result: z.ZodType<R>): JobKind<P, R> {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new RangeError(`job kind name "${name}" must be lower-case letters, digits and dashes`);
  return { name, payload, result };
}

/** What a handler gets besides the payload. */
export interface JobContext {
  readonly jobId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Sent to the dispatcher's onProgress (a grading step, a candidate measured). */
  progress(message: string): Promise<void>;
}

export interface JobHandler<P, R> {
  readonly kind: JobKind<P, R>;
  handle(payload: P, context: JobContext): Promise<R>;
}

/** A handler paired with its kind (erases the types for a worker's registry). */
export function handlerFor<P, R>(kind: JobKind<P, R>, handle: (payload: P, context: JobContext) => Promise<R>): JobHandler<unknown, unknown> {
  return { kind, handle } as JobHandler<unknown, unknown>;
}

/** The first problem zod found, with its path: "candidate.source: expected string, received number". */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length === 0 ? "(payload)" : issue.path.join(".")}: ${issue.message}`)
    .join("; ");
}
