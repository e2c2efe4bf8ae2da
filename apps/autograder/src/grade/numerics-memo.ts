/**
 * The simulator's numerics checks, remembered for the life of the process. A check's outcome is a
 * function of what it is given: the scheduled function (lowering is deterministic), the simulated
 * target, the assignment, the numerics settings, the seed and the work budget. The same kernel on
 * the same inputs is never simulated twice: a batch of submissions that share a task's schedule,
 * a student who grades again after editing another task, or the tuner meeting a schedule again.
 *
 * The key is a SHA-256 of all of that: the function as the token stream of structural equality
 * with names compared (messages name buffers and loops, so a renamed kernel is another entry), and
 * the schedule's trace, which the reduced-size pre-check replays on a smaller workload (one function
 * can come from traces that replay differently: a split written [2048 / 64, 64] or [None, 64]). A
 * cryptographic digest, because a submission could otherwise aim for the key of a kernel graded
 * before it. GPU checks are never remembered: their timings are measured, not computed.
 */
import { createHash } from "node:crypto";
import { writeStructuralTokens } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import type { NumericsOutcome } from "./numerics-types.js";

/** Outcomes kept; the oldest goes first. Each is a few kilobytes. */
const CAPACITY = 128;

/** What a simulated check depends on besides the schedule, for its key. */
export interface NumericsKeyParts {
  /** Which check: the sampled full-size check, or the whole launch at the reduced size. */
  readonly check: "sampled" | "reduced";
  readonly assignment: string;
  readonly target: string;
  readonly settings: unknown;
  readonly seed: number;
  /** Anything else the check's outcome depends on (rounds, a work budget). */
  readonly options: unknown;
}

export function numericsKey(schedule: Schedule, parts: NumericsKeyParts): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify(parts));
  hash.update("\u0000");
  hash.update(JSON.stringify(schedule.trace.toJSON()));
  writeStructuralTokens(
    schedule.func,
    (token) => {
      hash.update("\u0000");
      hash.update(token);
    },
    { compareNames: true },
  );
  return hash.digest("hex");
}

export class NumericsMemo {
  readonly #outcomes = new Map<string, NumericsOutcome>();
  /** Checks answered from memory, and checks that ran (for tests and progress lines). */
  readonly stats = { hits: 0, misses: 0 };

  constructor(private readonly capacity = CAPACITY) {}

  /** The outcome for `key`, computed by `check` the first time; a check that throws is not remembered. */
  remember(key: string, check: () => NumericsOutcome): NumericsOutcome {
    const known = this.#take(key);
    if (known !== undefined) return known;
    return this.#keep(key, check());
  }

  async rememberAsync(key: string, check: () => Promise<NumericsOutcome>): Promise<NumericsOutcome> {
    const known = this.#take(key);
    if (known !== undefined) return known;
    return this.#keep(key, await check());
  }

  clear(): void {
    this.#outcomes.clear();
  }

  #take(key: string): NumericsOutcome | undefined {
    const known = this.#outcomes.get(key);
    if (known === undefined) {
      this.stats.misses++;
      return undefined;
    }
    this.stats.hits++;
    // Most recently used last: a Map keeps insertion order.
    this.#outcomes.delete(key);
    this.#outcomes.set(key, known);
    // A copy: whoever gets an outcome may build on it, and must not change what is remembered.
    return structuredClone(known);
  }

  #keep(key: string, outcome: NumericsOutcome): NumericsOutcome {
    this.#outcomes.set(key, structuredClone(outcome));
    while (this.#outcomes.size > this.capacity) {
      const oldest = this.#outcomes.keys().next().value;
      if (oldest === undefined) break;
      this.#outcomes.delete(oldest);
    }
    return outcome;
  }
}

/** The process's memo of simulated checks. */
export const simulatedNumericsMemo = new NumericsMemo();
