/**
 * Replaying a trace from a cached prefix state. A mutant or crossover child differs from its parent
 * in one sampled decision (tile sizes, unroll, vectorize, a knob), late in the trace of the CUDA
 * space, while computeAt, cache reads and splits come before: replaying the shared instructions
 * again costs most of the trace application. Part-way states of replays are kept here, keyed by the
 * trace's prefix (its instructions and decisions up to that point, as canonical JSON); a replay
 * starts from a copy of the longest cached prefix and applies only the rest.
 *
 * Why the result is the same program and trace as a full replay: the schedule state after k
 * instructions is a function of the workload and those k instructions with their decisions, as
 * long as none of them drew from the random engine. Only prefixes whose sampling instructions all
 * have a decision are keyed, so the engine is untouched there and the copy is simply seeded with
 * the replay's seed. Handles of a copy stay valid (`Schedule.copy`), and the IR is immutable, so a
 * state is shared by copies without being changed by them.
 */
import { LruMap } from "../support/lru-map.js";
import { createHash } from "node:crypto";
import { type PrimFunc, writeStructuralTokens } from "@tessera/ir";
import { type RV, Schedule, type Trace, type TraceJSON } from "@tessera/schedule";

/**
 * States kept. A state holds a schedule (its module shares the unchanged IR with the workload and
 * with the other states of the same replay: a few tens of KB of new nodes each for a 2048³ gemm),
 * the handles of the prefix's outputs and a copy of the trace so far.
 */
export const DEFAULT_PREFIX_STATES = 1024;

interface PrefixState {
  /** The schedule after the prefix; only ever copied, never replayed further itself. */
  readonly sch: Schedule;
  /** The handles each instruction of the prefix gave on `sch`. */
  readonly outputs: readonly (readonly RV[])[];
}

export interface PrefixReplayOptions {
  readonly seed: number;
  /** Every sampling instruction samples afresh (nothing is cached past the first one). */
  readonly freshDecisions: boolean;
}

export class PrefixStateCache {
  private readonly states: LruMap<string, PrefixState>;
  private readonly funcKeys = new WeakMap<PrimFunc, string>();
  /** Replays resumed from a cached state, and instructions they did not apply again. */
  hits = 0;
  instructionsSkipped = 0;
  /** Replays that found no cached state (a trace whose first instruction samples afresh included). */
  misses = 0;

  constructor(readonly capacity = DEFAULT_PREFIX_STATES) {
    if (!Number.isSafeInteger(capacity) || capacity < 0) throw new RangeError(`PrefixStateCache: capacity must be a non-negative integer, got ${capacity}`);
    this.states = new LruMap(capacity);
  }

  get size(): number {
    return this.states.size;
  }

  clear(): void {
    this.states.clear();
  }

  /**
   * A schedule of `func` seeded with `opts.seed` with the trace's instructions up to EnterPostproc
   * applied, as `trace.applyTo(new Schedule(func, { seed }), { removePostproc: true })` gives it
   * (with `decisions: () => null` when `freshDecisions`). A failing instruction throws as there.
   */
  replay(func: PrimFunc, trace: Trace, opts: PrefixReplayOptions): Schedule {
    const keys = this.capacity === 0 ? [] : this.prefixKeys(func, trace.toJSON({ removePostproc: true }), opts.freshDecisions);
    const sampling = samplingPositions(trace);
    let start: { readonly sch: Schedule; readonly state: PrefixState } | undefined;
    for (let k = keys.length - 1; k > 0 && start === undefined; k--) {
      if (!sampling.has(k)) continue;
      const state = this.states.get(keys[k]!);
      if (state !== undefined) start = { sch: state.sch.copy(), state };
    }
    let sch: Schedule;
    if (start === undefined) {
      this.misses++;
      sch = new Schedule(func, { seed: opts.seed });
    } else {
      this.hits++;
      this.instructionsSkipped += start.state.outputs.length;
      sch = start.sch;
      sch.seed(opts.seed);
    }
    trace.applyTo(sch, {
      removePostproc: true,
      ...(opts.freshDecisions ? { decisions: () => null } : {}),
      ...(start === undefined ? {} : { resume: { outputs: start.state.outputs } }),
      beforeInstruction: (index, outputs) => {
        const key = keys[index];
        if (key === undefined || !sampling.has(index) || this.states.has(key)) return;
        this.states.set(key, { sch: sch.copy(), outputs: outputs.slice() });
      },
    });
    return sch;
  }

  /**
   * keys[k]: the key of the trace's first k instructions with their decisions, for every k whose
   * prefix draws nothing from the random engine (up to the first sampling instruction without a
   * decision, or the first one at all when decisions are sampled afresh).
   */
  private prefixKeys(func: PrimFunc, json: TraceJSON, freshDecisions: boolean): string[] {
    const decisions = new Map(json.decisions);
    const hash = createHash("sha256").update(this.funcKey(func));
    const keys: string[] = [];
    for (let k = 0; k <= json.instructions.length; k++) {
      keys.push(hash.copy().digest("base64"));
      if (k === json.instructions.length) break;
      const inst = json.instructions[k]!;
      const decision = freshDecisions ? undefined : decisions.get(k);
      if (isSamplingKind(inst.kind) && decision === undefined) break;
      hash.update(JSON.stringify([inst, decision ?? null]));
      hash.update("\n");
    }
    return keys;
  }

  /**
   * The workload's identity: its structure with names compared, and float constants by their exact
   * value (a state of `max(x, 0.0)` is not one of `max(x, -0.0)`), digested once per function object.
   */
  private funcKey(func: PrimFunc): string {
    let key = this.funcKeys.get(func);
    if (key === undefined) {
      const hash = createHash("sha256");
      writeStructuralTokens(func, (token) => hash.update(token).update("\u0000"), { compareNames: true });
      key = hash.digest("base64");
      this.funcKeys.set(func, key);
    }
    return key;
  }
}

/** Sampling instructions draw from the random engine when they have no decision: the `Sample*` kinds. */
export function isSamplingKind(kindName: string): boolean {
  return kindName.startsWith("Sample");
}

/** The indices of the sampling instructions before EnterPostproc: where a mutant's trace can part from its parent's. */
function samplingPositions(trace: Trace): Set<number> {
  const out = new Set<number>();
  for (const [k, inst] of trace.instructions.entries()) {
    if (inst.kind.name === "EnterPostproc") break;
    if (isSamplingKind(inst.kind.name)) out.add(k);
  }
  return out;
}

let ofThisThread: PrefixStateCache | undefined;

/**
 * The prefix states of this thread, shared by the search's replays here and by the replay jobs a
 * worker thread serves (it lives as long as the thread: bounded, and keyed by the workload).
 */
export function threadPrefixStates(): PrefixStateCache {
  ofThisThread ??= new PrefixStateCache();
  return ofThisThread;
}

/** Replaces this thread's prefix states by an empty cache of `capacity` (0: replays start afresh; benchmarks compare both). */
export function resetThreadPrefixStates(capacity = DEFAULT_PREFIX_STATES): PrefixStateCache {
  ofThisThread = new PrefixStateCache(capacity);
  return ofThisThread;
}
