/**
 * The seeded inputs of the simulator's numerics rounds, drawn once per (workload, size, seed,
 * range) and shared for the life of the process. Every check of a grading draws the same rounds
 * (the seed is the grading's, round r uses seed + r): part 1's and part 2's checks, every grading
 * of a batch or a test file. At the graded size one round's inputs are 3 × 2048² floats, a quarter
 * of a second of drawing: as much as simulating the round's sampled blocks.
 *
 * Each thread keeps its own draws: the rounds worker thread (rounds-helper.ts) lives for a whole
 * grading, so it too draws a round once for part 1's and part 2's checks. Sending the arrays
 * between the threads was tried and dropped: the structured clones (48 MB a round) and the fresh
 * shared buffers they were copied into cost about as much CPU as drawing them.
 *
 * A kept array ("master") is never handed to a kernel: a kernel may store into its inputs, so
 * each run gets copies (`withRunInputs`), and its reference is computed from those copies, as when
 * it drew its own.
 */
import type { WorkloadNumerics } from "@tessera/course-kit";

/**
 * Bytes of masters kept per thread (the least recently used go first): the manifest's 5 rounds of
 * 3 × 2048² floats and the reduced-size pre-check's, with room to spare. Below a grading's working
 * set, least-recently-used eviction would miss on every round (part 2 asks in part 1's order).
 */
export const SEEDED_INPUTS_BYTES = 6 * 3 * 2048 * 2048 * 4;

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
  }

  get bytes(): number {
    return this.#bytes;
  }
}

const masters = new MasterCache(SEEDED_INPUTS_BYTES);
/** Draws made in this thread since the last `clearSeededInputs` (for tests). */
let draws = 0;

/** The inputs of this draw, drawn now unless kept (read only: never give them to a kernel). */
export function sharedInputs(numerics: WorkloadNumerics, n: number, seed: number, range: Range): readonly Float32Array[] {
  const key = keyOf(numerics, n, seed, range);
  const kept = masters.get(key);
  if (kept !== undefined) return kept;
  draws++;
  const drawn = numerics.inputs(n, seed, range);
  masters.set(key, drawn);
  return drawn;
}

/**
 * `run` given copies of this draw's inputs, which it may write; they are valid only until it
 * returns. The copies are this thread's scratch arrays of that size, refilled for every run:
 * copying into memory already mapped is about 1 ms per 2048² array, a fresh array (`slice`)
 * 20–50 ms, most of it the kernel's page faults.
 */
export function withRunInputs<T>(numerics: WorkloadNumerics, n: number, seed: number, range: Range, run: (inputs: Float32Array[]) => T): T {
  const from = sharedInputs(numerics, n, seed, range);
  const key = from.map((a) => a.length).join(",");
  const idle = scratch.get(key);
  // A run inside a run (none today) gets arrays of its own.
  const inputs = idle ?? from.map((a) => new Float32Array(a.length));
  scratch.delete(key);
  try {
    from.forEach((a, k) => inputs[k]!.set(a));
    return run(inputs);
  } finally {
    scratch.clear(); // one set of scratch arrays per thread: the size last run
    scratch.set(key, inputs);
  }
}

/** Idle scratch arrays by their lengths. */
const scratch = new Map<string, Float32Array[]>();

/** Draws made in this thread, and bytes kept (for tests). */
export function seededInputsStats(): { readonly draws: number; readonly bytes: number } {
  return { draws, bytes: masters.bytes };
}

/** Forgets every kept draw (for tests). */
export function clearSeededInputs(): void {
  masters.clear();
  draws = 0;
}
