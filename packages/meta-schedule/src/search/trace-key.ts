/**
 * The identity of a whole trace (postprocessing and decisions included): a SHA-256 digest of its
 * JSON text — 44 characters to keep per trace instead of kilobytes. A search worker digests the
 * text it sends, so the search's thread never stringifies a replayed trace to identify it.
 */
import { createHash } from "node:crypto";
import type { TraceJSON } from "@tessera/schedule";

export function traceKeyOf(trace: TraceJSON): string {
  return traceKeyOfText(JSON.stringify(trace));
}

/** The key of a trace given as its JSON text (`JSON.stringify` of its `toJSON()`). */
export function traceKeyOfText(text: string): string {
  return createHash("sha256").update(text).digest("base64");
}
