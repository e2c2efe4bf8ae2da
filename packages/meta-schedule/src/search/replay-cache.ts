/**
 * The outcomes of replays whose result cannot depend on their seed: a trace replayed with its
 * recorded decisions, every sampling instruction decided, always gives the same program (or the
 * same rejection). The evolutionary search proposes such traces again and again — the same
 * mutation of a favoured parent in every generation and round, two slots breeding the same child —
 * and each replay (trace, postprocessors, lowering in VerifyGPUCode) costs tens of milliseconds.
 * The cache lives in the search's thread and is consulted before replays are sent to workers, so
 * the candidates of a seed stay the same with any number of workers, and with or without it.
 */
import { isSamplingKind } from "../space/prefix-states.js";
import { LruMap } from "../support/lru-map.js";
import type { Trace, TraceJSON } from "@tessera/schedule";
import type { Candidate } from "./lazy-candidate.js";
import { traceKeyOf, traceKeyOfText } from "./trace-key.js";

/** A replay's outcome: the candidate, or the short reason it was rejected. */
export type ReplayOutcomeOf = { readonly candidate: Candidate } | { readonly rejected: string };

/** Most outcomes kept (a program of a 2048³ gemm holds its lowered function: a few hundred KB). */
export const DEFAULT_REPLAY_CACHE_SIZE = 1024;

/** Whether replaying `trace` with its recorded decisions draws nothing from the replay's random engine. */
export function everySampleDecided(trace: Trace): boolean {
  return trace.instructions.every((inst) => !isSamplingKind(inst.kind.name) || trace.decisions.has(inst));
}

export class ReplayCache {
  private readonly outcomes: LruMap<string, ReplayOutcomeOf>;
  hits = 0;

  constructor(private readonly capacity = DEFAULT_REPLAY_CACHE_SIZE) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`ReplayCache: capacity must be a non-negative integer, got ${capacity}`);
    this.outcomes = new LruMap(capacity);
  }

  /** The cache key of a replay, or undefined when its outcome may depend on its seed (fresh decisions, an undecided sample). */
  keyOf(trace: Trace, json: TraceJSON, freshDecisions: boolean): string | undefined {
    return this.#cacheable(trace, freshDecisions) ? traceKeyOf(json) : undefined;
  }

  /** `keyOf`, given the trace's JSON text (`JSON.stringify` of its `toJSON()`). */
  keyOfText(trace: Trace, text: string, freshDecisions: boolean): string | undefined {
    return this.#cacheable(trace, freshDecisions) ? traceKeyOfText(text) : undefined;
  }

  #cacheable(trace: Trace, freshDecisions: boolean): boolean {
    return !freshDecisions && this.capacity > 0 && everySampleDecided(trace);
  }

  get(key: string): ReplayOutcomeOf | undefined {
    const outcome = this.outcomes.get(key);
    if (outcome === undefined) return undefined;
    this.hits++;
    return outcome;
  }

  set(key: string, outcome: ReplayOutcomeOf): void {
    this.outcomes.set(key, outcome);
  }

  get size(): number {
    return this.outcomes.size;
  }
}
