/**
 * What a checked run sends back instead of whole arguments: sampled values and float sums per argument
 * (why this suffices: docs/architecture/meta-schedule-notes.md).
 */
import { mulberry32 } from "@tessera/ir";
import type { AnyTypedArray } from "@tessera/runtime";

export interface OutputDigest {
  /** Elements of the argument. */
  readonly length: number;
  /** Indices of `values`, ascending; undefined when `values` holds every element. */
  readonly indices: Int32Array | undefined;
  readonly values: AnyTypedArray;
  /** Σ x and Σ |x| over every element, in float64 (float32 and float64 arguments only). */
  readonly sum?: number;
  readonly absSum?: number;
}

/** Elements sampled per argument by default. */
export const DEFAULT_OUTPUT_SAMPLES = 65_536;

/** How many elements of each argument a checked run sends back: a count, or every element. */
export type OutputSamples = number | "all";

const indexCache = new Map<string, Int32Array>();

/**
 * `count` distinct indices in [0, length), ascending, always including the first and the last:
 * a deterministic function of (length, count), so the child and the parent pick the same ones.
 */
export function sampleIndices(length: number, count: number): Int32Array | undefined {
  if (!Number.isInteger(count) || count < 2) throw new RangeError(`output samples must be an integer ≥ 2, got ${count}`);
  if (length <= count) return undefined;
  const key = `${length}:${count}`;
  const cached = indexCache.get(key);
  if (cached !== undefined) return cached;
  // One index drawn in each of `count` equal strata: spread over the whole array, no duplicates.
  const next = mulberry32(length ^ 0x5eed);
  const out = new Int32Array(count);
  for (let s = 0; s < count; s++) {
    const lo = Math.floor((s * length) / count);
    const hi = Math.floor(((s + 1) * length) / count);
    out[s] = s === 0 ? 0 : s === count - 1 ? length - 1 : lo + Math.floor(next() * (hi - lo));
  }
  if (indexCache.size > 16) indexCache.clear();
  indexCache.set(key, out);
  return out;
}

export function digestOf(array: AnyTypedArray, samples: OutputSamples): OutputDigest {
  const indices = samples === "all" ? undefined : sampleIndices(array.length, samples);
  const values = indices === undefined ? array : pick(array, indices);
  const sums = array instanceof Float32Array || array instanceof Float64Array ? floatSums(array) : {};
  return { length: array.length, indices, values, ...sums };
}

function pick(array: AnyTypedArray, indices: Int32Array): AnyTypedArray {
  const Ctor = array.constructor as new (n: number) => AnyTypedArray;
  const out = new Ctor(indices.length);
  const src = array as unknown as ArrayLike<number | bigint>;
  const dst = out as unknown as (number | bigint)[];
  for (let k = 0; k < indices.length; k++) dst[k] = src[indices[k]!]!;
  return out;
}

function floatSums(array: Float32Array | Float64Array): { sum: number; absSum: number } {
  let sum = 0;
  let absSum = 0;
  for (let i = 0; i < array.length; i++) {
    const x = array[i]!;
    sum += x;
    absSum += Math.abs(x);
  }
  return { sum, absSum };
}
