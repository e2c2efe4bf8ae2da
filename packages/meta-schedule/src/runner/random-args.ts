/**
 * The arguments a runner measures with: one host array per ArgInfo, filled from a seeded PRNG so
 * that the child process and the parent (for a correctness check) draw the same values. Floats
 * are uniform in [-1, 1), integers in [-10, 10] ([0, 10] unsigned), bools 0 or 1; float16 and
 * bfloat16 hold their bit patterns, as the runtime's arrays do.
 */
import { LruMap } from "../support/lru-map.js";
import { mulberry32 } from "@tessera/ir";
import { type AnyTypedArray, allocTypedArray, bfloat16Bits, float16Bits, isDType } from "@tessera/runtime";
import { type ArgInfo, argInfoToJSON } from "../arg-info.js";
import { MetaScheduleError } from "../errors.js";

export function elementsOf(info: ArgInfo): number {
  return info.shape.reduce((a, b) => a * b, 1);
}

export function randomArgsFor(argsInfo: readonly ArgInfo[], seed: number): AnyTypedArray[] {
  const next = mulberry32(seed);
  return argsInfo.map((info, k) => {
    const { dtype } = info;
    if (!isDType(dtype)) throw new MetaScheduleError(`argument ${k}: dtype ${dtype} cannot be allocated on a device`);
    const array = allocTypedArray(dtype, elementsOf(info));
    const float = (): number => -1 + 2 * next();
    const draw: () => number | bigint =
      dtype === "float32" || dtype === "float64"
        ? float
        : dtype === "float16"
          ? () => float16Bits(float())
          : dtype === "bfloat16"
            ? () => bfloat16Bits(float())
            : dtype === "bool"
              ? () => (next() < 0.5 ? 0 : 1)
              : dtype.startsWith("uint")
                ? () => Math.floor(next() * 11)
                : () => -10 + Math.floor(next() * 21);
    const big = dtype === "int64" || dtype === "uint64";
    for (let i = 0; i < array.length; i++) {
      const v = draw();
      (array as unknown as (number | bigint)[])[i] = big ? BigInt(v) : v;
    }
    return array;
  });
}

/**
 * The last few argument lists drawn, by seed and ArgInfo: a batch measures one workload, and
 * drawing four 2048² arrays takes a few hundred milliseconds, which a runner must not pay per
 * candidate. Callers must not write into the arrays (copy them first, as a kernel's arguments).
 */
export class RandomArgsCache {
  readonly #lists: LruMap<string, AnyTypedArray[]>;

  constructor(capacity = 2) {
    this.#lists = new LruMap(capacity);
  }

  get(argsInfo: readonly ArgInfo[], seed: number): readonly AnyTypedArray[] {
    const key = JSON.stringify([seed, argsInfo.map(argInfoToJSON)]);
    let arrays = this.#lists.get(key);
    if (arrays === undefined) {
      arrays = randomArgsFor(argsInfo, seed);
      this.#lists.set(key, arrays);
    }
    return arrays;
  }
}
