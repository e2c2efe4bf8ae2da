/** Job kinds of the queue's own tests: no compiler involved. */
import { z } from "zod";
import { defineJobKind } from "../../src/index.js";

/** Squares a number; appends "done <id> <pid>" to the journal when it finishes. */
export const SQUARE = defineJobKind("square", z.object({ id: z.string(), n: z.number() }), z.object({ id: z.string(), square: z.number(), pid: z.number() }));

/** Always throws (for retries and the dead-letter queue). */
export const BROKEN = defineJobKind("broken", z.object({ id: z.string() }), z.object({}));

/** Holds its worker's thread (a synchronous loop) for `ms`; the result names the process that did it. */
export const BLOCKING = defineJobKind("blocking", z.object({ ms: z.number() }), z.object({ pid: z.number() }));
