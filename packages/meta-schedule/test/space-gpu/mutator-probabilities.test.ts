/** The default CUDA space's mutator weights: the defaults, an override by name, and refused weights. */
import { cudaTarget } from "@tessera/codegen";
import { describe, expect, it } from "vitest";
import { DEFAULT_CUDA_MUTATOR_PROBABILITIES, defaultCudaSpace } from "../../src/space/defaults.js";

const tgt = cudaTarget("nvidia/h100");
const weights = (opts: Parameters<typeof defaultCudaSpace>[1] = {}) =>
  Object.fromEntries(defaultCudaSpace(tgt, opts).mutators.map((m) => [m.mutator.name, m.probability]));

describe("defaultCudaSpace mutator probabilities", () => {
  it("weighs each mutator by the defaults, and an override changes only the mutator it names", () => {
    const defaults = weights();
    expect(Object.values(defaults).sort()).toEqual(Object.values(DEFAULT_CUDA_MUTATOR_PROBABILITIES).sort());
    const knobHeavy = weights({ mutatorProbabilities: { gemmKnob: 0.25 } });
    const changed = Object.keys(defaults).filter((name) => knobHeavy[name] !== defaults[name]);
    expect(changed).toHaveLength(1);
    expect(knobHeavy[changed[0]!]).toBe(0.25);
  });

  it.each([-0.1, Number.NaN, Number.POSITIVE_INFINITY])("refuses the weight %s, naming the mutator", (bad) => {
    expect(() => defaultCudaSpace(tgt, { mutatorProbabilities: { unroll: bad } })).toThrow(/mutatorProbabilities\.unroll must be a finite number ≥ 0/);
  });
});
