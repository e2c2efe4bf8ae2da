/**
 * Turning traces into candidates, the step every search strategy repeats: replay a trace (with
 * its decisions, or sampling afresh) plus the postprocessors, tally the reason of every failure,
 * and identify the resulting program so that duplicates can be dropped.
 *
 * Identity: two candidates are the same when their functions are structurally equal, i.e. have
 * the same `structuralHash`. Hashing costs a fraction of a replay, but the same trace (decisions
 * included) always gives the same program, so the hash is cached by a digest of the trace's
 * JSON — a cheap pre-filter that makes re-replayed parents and repeated mutations free to identify.
 */
import { createHash } from "node:crypto";
import { structuralHash } from "@tessera/ir";
import type { RandomEngine, Schedule, Trace, TraceJSON } from "@tessera/schedule";
import type { Postproc } from "../interfaces/postproc.js";
import { replayWithPostprocs } from "../space/replay.js";
import type { TuneContext } from "../tune-context.js";
import type { RejectionTally } from "./rejection-tally.js";

/** A replayed, postprocessed schedule, the structural hash of its function, and the digest of its trace. */
export interface Candidate {
  readonly sch: Schedule;
  readonly hash: string;
  readonly traceKey: string;
}

/** Bounded cache: traces are replayed by the thousand over a long run. */
const MAX_CACHED_TRACES = 100_000;

export class ProgramIdentity {
  private readonly hashByTrace = new Map<string, string>();

  identify(sch: Schedule): { readonly hash: string; readonly traceKey: string } {
    const traceKey = traceKeyOf(sch.trace.toJSON());
    const cached = this.hashByTrace.get(traceKey);
    if (cached !== undefined) return { hash: cached, traceKey };
    const hash = structuralHash(sch.func);
    if (this.hashByTrace.size >= MAX_CACHED_TRACES) this.hashByTrace.clear();
    this.hashByTrace.set(traceKey, hash);
    return { hash, traceKey };
  }
}

export class CandidateReplayer {
  readonly identity = new ProgramIdentity();

  constructor(
    private readonly ctx: TuneContext,
    private readonly postprocs: readonly Postproc[],
    private readonly rng: RandomEngine,
  ) {}

  /** A new point of a random design space: its trace replayed with every decision sampled afresh. */
  sampleFresh(designSpaces: readonly Trace[], tally: RejectionTally): Candidate | undefined {
    const space = designSpaces[this.rng.int(0, designSpaces.length)]!;
    return this.replay(space, true, tally);
  }

  /** The trace replayed as recorded (a measured record, a mutated trace). */
  replayRecorded(trace: Trace, tally: RejectionTally): Candidate | undefined {
    return this.replay(trace, false, tally);
  }

  private replay(trace: Trace, freshDecisions: boolean, tally: RejectionTally): Candidate | undefined {
    const out = replayWithPostprocs(this.ctx, trace, this.postprocs, { freshDecisions, seed: this.rng.forkSeed() });
    if (!out.ok) {
      tally.add(out.reason);
      return undefined;
    }
    return { sch: out.sch, ...this.identity.identify(out.sch) };
  }
}

/**
 * The identity of a whole trace (postprocessing and decisions included): a SHA-256 digest of its
 * JSON text — 44 characters to keep per trace instead of kilobytes.
 */
export function traceKeyOf(trace: TraceJSON): string {
  return createHash("sha256").update(JSON.stringify(trace)).digest("base64");
}
