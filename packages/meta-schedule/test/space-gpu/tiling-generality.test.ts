/**
 * MultiLevelTiling beyond square GEMMs: a batched matmul's batch axis stays whole at the grid level
 * (fused into blockIdx), and the grid-fill prior weighs the tiles of skinny GEMMs by the target's
 * SM count while large square GEMMs keep uniform draws.
 */
import { gemmReluAdd, matmul } from "@tessera/ir";
import type { Trace } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { H100, batchMatmul, spaceOf } from "./helpers.js";

/** [candidates, probabilities] of the trace's first SampleCategorical instructions (the tile draws). */
function categoricals(trace: Trace, count: number): [number[], number[]][] {
  return trace.instructions
    .filter((i) => i.kind.name === "SampleCategorical")
    .slice(0, count)
    .map((i) => [i.attrs[0] as number[], i.attrs[1] as number[]]);
}

describe("batch-aware tiling", () => {
  it("launches batch × tiles blocks whose threads tile the matrix axes alone", () => {
    const batch = 3;
    const func = batchMatmul(batch, 32, 32, 16);
    const { ctx, gen, spaces } = spaceOf(func);
    let valid = 0;
    for (let seed = 1; seed <= 8; seed++) {
      const out = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
      if (!out.ok) continue;
      valid++;
      const [kernel] = loweredModuleFor(out.sch.func)!.kernels;
      const blocks = kernel!.launch.grid.reduce((a, b) => a * b, 1);
      const threads = kernel!.launch.block.reduce((a, b) => a * b, 1);
      // 32 × 32 tiles into powers of two: a grid divisible by 3 holds the whole batch axis.
      expect(blocks % batch).toBe(0);
      expect(Math.log2(threads) % 1).toBe(0);
      expect(threads).toBeGreaterThanOrEqual(64);
    }
    expect(valid).toBeGreaterThan(4);
  });

  it("samples the matrix axes' threads in the range of two axes, not three", () => {
    const { spaces } = spaceOf(batchMatmul(16, 512, 512, 512));
    const draws = categoricals(spaces[0]!.trace, 3);
    expect(draws[0]![0]).toEqual([8, 16, 32]);
    expect(draws[2]![0]).toEqual([8, 16, 32]);
  });
});

describe("the grid-fill prior", () => {
  it("leaves the draws of a 2048³ GEMM uniform on an H100", () => {
    for (const [, probs] of categoricals(spaceOf(gemmReluAdd(2048).func).spaces[0]!.trace, 4)) {
      for (const p of probs) expect(p).toBe(1 / probs.length);
    }
  });

  it("prefers the tiles of a skinny GEMM whose grid fills the SMs, more so with more SMs", () => {
    const skinny = matmul(64, 4096, 4096).func;
    const [jThreads, onH100] = categoricals(spaceOf(skinny).spaces[0]!.trace, 3)[2]!;
    expect(jThreads).toEqual([8, 16, 32]);
    expect(onH100[0]!).toBeGreaterThan(onH100[2]!);
    const [, onSmallGpu] = categoricals(spaceOf(skinny, {}, { ...H100, multiProcessorCount: 16 }).spaces[0]!.trace, 3)[2]!;
    for (const p of onSmallGpu) expect(p).toBe(1 / 3);
  });
});
