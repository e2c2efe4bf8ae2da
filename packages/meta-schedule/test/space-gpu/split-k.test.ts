/**
 * Split-k in the default CUDA space (rules/multi-level-tiling, split-k.ts): which GEMMs get a
 * split-k design space, and what its trace samples. The replay of every part count, the
 * simulator property and the nvcc compile are in split-k.property.test.ts (slow).
 */
import { matmul } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { GEMM_KNOB_KEYS } from "../../src/mutator/mutate-gemm-knob.js";
import { categoricalsFeeding } from "../../src/mutator/sampled-annotations.js";
import { SPLIT_K } from "../../src/schedule-utils/annotations.js";
import { isSplitK, spaceOf } from "./helpers.js";

const skinny = spaceOf(matmul(64, 4096, 4096).func).spaces;

describe("split-k design spaces", () => {
  it("are offered for a skinny GEMM, not for a square one that fills the GPU, a small one or a shallow reduction", () => {
    expect(skinny).toHaveLength(2);
    expect(skinny.filter(isSplitK)).toHaveLength(1);
    expect(spaceOf(matmul(1000, 1000, 1000).func).spaces).toHaveLength(1);
    // Too little work by default (2^24 multiply-adds), offered with no minimum.
    expect(spaceOf(matmul(256, 256, 256).func).spaces).toHaveLength(1);
    expect(spaceOf(matmul(256, 256, 256).func, { tiling: { splitKMinIterations: 0 } }).spaces.filter(isSplitK)).toHaveLength(1);
    // Too shallow a reduction to split (parts of at least 128).
    expect(spaceOf(matmul(16, 64, 200).func, { tiling: { splitKMinIterations: 0 } }).spaces).toHaveLength(1);
  });

  it("sample the part count as a GEMM knob that MutateGemmKnob moves", () => {
    const space = skinny.find(isSplitK)!;
    const parts = categoricalsFeeding(space.trace, new Set([SPLIT_K]));
    expect(parts).toHaveLength(1);
    expect(parts[0]!.attrs[0]).toEqual([2, 4, 8, 16]);
    expect(GEMM_KNOB_KEYS.has(SPLIT_K)).toBe(true);
  });
});
