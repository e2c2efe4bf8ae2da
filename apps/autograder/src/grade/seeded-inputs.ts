/**
 * The seeded inputs of the simulator's numerics rounds, drawn once per (workload, size, seed,
 * range) and shared for the life of the process. Every check of a grading draws the same rounds
 * (the seed is the grading's, round r uses seed + r): part 1's and part 2's checks, every grading
 * of a batch or a test file. At the graded size one round's inputs are 3 × 2048² floats, a quarter
 * of a second of drawing: as much as simulating the round's sampled blocks.
 *
 * The kept arrays ("masters") are in shared memory, so that the rounds worker thread uses the
 * very arrays the grader drew, and the grader keeps what the worker drew (rounds-helper.ts). A
 * master is never handed to a kernel: a kernel may store into its inputs, so each run gets copies
 * (`inputsToRun`), and its reference is computed from those copies, as when it drew its own.
 */
import type { WorkloadNumerics } from "@tessera/course-kit";

/** Bytes of masters kept (the least recently used go first): 5 rounds of 3 × 2048² floats. */
export const SEEDED_INPUTS_BYTES = 5 * 3 * 2048 * 2048 * 4;

type Range = readonly [number, number];

/** Which draw: numerics.inputs is a function of these (and of the workload: see `workloadId`). */
function keyOf(numerics: WorkloadNumerics, n: number, seed: number, range: Range): string {
  return `${workloadId(numerics)}|${n}|${seed}|${range[0]}|${range[1]}`;
}

/** The workloads by identity: two bindings may name the same workload and draw differently. */
const workloadIds = new WeakMap<WorkloadNumerics, number>();
let nextWorkloadId = 1;
function workloadId(numerics: WorkloadNumerics): number {
  let id = workloadIds.get(numerics);
  if (id === undefined) {
    id = nextWorkloadId++;
    workloadIds.set(numerics, id);
  }
  return id;
}

/** Arrays by key, at most `maxBytes` of them; the least recently used go first. */
export class MasterCache {
  /** In order of last use (a Map iterates in insertion order). */
  readonly #entries = new Map<string, readonly Float32Array[]>();
  #bytes = 0;
  /** Draws made in this thread (for tests). */
  draws = 0;

  constructor(readonly maxBytes: number) {}

  get(key: string): readonly Float32Array[] | undefined {
    const arrays = this.#entries.get(key);
    if (arrays !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, arrays);
    }
    return arrays;
  }

  set(key: string, arrays: readonly Float32Array[]): void {
    if (this.#entries.has(key)) return;
    const bytes = arrays.reduce((s, a) => s + a.byteLength, 0);
    if (bytes > this.maxBytes) return;
    this.#entries.set(key, arrays);
    this.#bytes += bytes;
    for (const [oldKey, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldKey);
      this.#bytes -= old.reduce((s, a) => s + a.byteLength, 0);
    }
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
    this.draws = 0;
  }

  get bytes(): number {
    return this.#bytes;
  }
}

const masters = new MasterCache(SEEDED_INPUTS_BYTES);

/** The kept inputs of this draw, if this thread has them (read only: see `inputsToRun`). */
export function keptInputs(numerics: WorkloadNumerics, n: number, seed: number, range: Range): readonly Float32Array[] | undefined {
  return masters.get(keyOf(numerics, n, seed, range));
}

/** The inputs of this draw, drawn now unless kept (read only: never give them to a kernel). */
export function sharedInputs(numerics: WorkloadNumerics, n: number, seed: number, range: Range): readonly Float32Array[] {
  const key = keyOf(numerics, n, seed, range);
  const kept = masters.get(key);
  if (kept !== undefined) return kept;
  masters.draws++;
  const drawn = numerics.inputs(n, seed, range).map(toShared);
  masters.set(key, drawn);
  return drawn;
}

/** Fresh copies of this draw's inputs, for a run that may write them. */
export function inputsToRun(numerics: WorkloadNumerics, n: number, seed: number, range: Range): Float32Array[] {
  return sharedInputs(numerics, n, seed, range).map((a) => a.slice());
}

/** Keeps inputs of this draw made in another thread (the same values `numerics.inputs` gives). */
export function adoptInputs(numerics: WorkloadNumerics, n: number, seed: number, range: Range, arrays: readonly Float32Array[]): void {
  masters.set(keyOf(numerics, n, seed, range), arrays);
}

/** Draws made in this thread, and bytes kept (for tests). */
export function seededInputsStats(): { readonly draws: number; readonly bytes: number } {
  return { draws: masters.draws, bytes: masters.bytes };
}

/** Forgets every kept draw (for tests). */
export function clearSeededInputs(): void {
  masters.clear();
}

function toShared(a: Float32Array): Float32Array {
  const shared = new Float32Array(new SharedArrayBuffer(a.byteLength));
  shared.set(a);
  return shared;
}
