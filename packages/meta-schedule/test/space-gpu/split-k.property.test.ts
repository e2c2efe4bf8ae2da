/**
 * Split-k in the default CUDA space: GEMMs whose output tiles cannot fill the GPU get a second
 * design space with the reduction split across the grid (an rfactor block writing partial sums to
 * a global workspace, then a kernel summing them); its samples lower to two kernels and simulate
 * equal to the executor. GEMMs that fill the GPU keep one design space.
 */
import { gemmReluAdd, matmul } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nvccStatus } from "@tessera/runtime";
import { LocalBuilder, replayWithPostprocs } from "../../src/index.js";
import { categoricalsFeeding } from "../../src/mutator/sampled-annotations.js";
import { SPLIT_K } from "../../src/schedule-utils/annotations.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { checkSimulatedOrRejected, isSplitK, spaceOf } from "./helpers.js";

const nvcc = await nvccStatus();
/** Split-k offered to blocks of any size (small enough to simulate). */
const ANY_WORK = { tiling: { splitKMinIterations: 0 } };

describe("split-k design spaces", () => {
  it("sample part counts that lower to a partial-sum kernel and a summing kernel, equal to the executor", () => {
    const tally = { simulated: 0, rejected: 0 };
    fc.assert(
      fc.property(
        fc.record({
          m: fc.integer({ min: 3, max: 40 }),
          n: fc.integer({ min: 8, max: 96 }),
          k: fc.constantFrom(256, 384, 512, 640),
          seed: fc.integer({ min: 1, max: 1_000_000 }),
        }),
        ({ m, n, k, seed }) => {
          const func = matmul(m, n, k).func;
          const { ctx, gen, spaces } = spaceOf(func, ANY_WORK);
          const space = spaces.find(isSplitK);
          expect(space, `a split-k space for ${m}×${n}×${k}`).toBeDefined();
          const out = replayWithPostprocs(ctx, space!.trace, gen.postprocs, { seed, freshDecisions: true });
          const outcome = checkSimulatedOrRejected(out, func, seed);
          tally[outcome]++;
          if (out.ok) expect(loweredModuleFor(out.sch.func)!.kernels).toHaveLength(2);
        },
      ),
      { numRuns: 12, seed: 8 },
    );
    expect(tally.simulated).toBeGreaterThan(6);
  }, 300_000);

  it("keep an epilogue (gemm+ReLU+add) as a third kernel after the sum, equal to the executor", () => {
    const func = gemmReluAdd(8, 64, 512).func;
    const { ctx, gen, spaces } = spaceOf(func, ANY_WORK);
    const space = spaces.find(isSplitK)!;
    for (const seed of [1, 2]) {
      const out = replayWithPostprocs(ctx, space.trace, gen.postprocs, { seed, freshDecisions: true });
      expect(checkSimulatedOrRejected(out, func, seed)).toBe("simulated");
      expect(out.ok && loweredModuleFor(out.sch.func)!.kernels.length).toBe(3);
    }
  });

  it("replay every part count the decision names into a workspace of that many partial sums", () => {
    const { ctx, gen, spaces } = spaceOf(matmul(8, 64, 2048).func, ANY_WORK);
    const trace = spaces.find(isSplitK)!.trace;
    const inst = categoricalsFeeding(trace, new Set([SPLIT_K]))[0]!;
    const workspaceParts = [0, 1, 2, 3].map((decision) => {
      const out = replayWithPostprocs(ctx, trace.withDecision(inst, decision), gen.postprocs, { seed: 5 });
      if (!out.ok) throw new Error(`part count #${decision} rejected: ${out.detail}`);
      return loweredModuleFor(out.sch.func)!.workspaces.map((w) => w.elements / (8 * 64));
    });
    expect(workspaceParts).toEqual([[2], [4], [8], [16]]);
  });

  it.skipIf(!nvcc.ok)(
    `compile with nvcc at the skinny 64×4096×4096: two kernels and a workspace of the parts${nvcc.ok ? "" : ` (skipped: ${nvcc.reason})`}`,
    async () => {
      const func = matmul(64, 4096, 4096).func;
      const { ctx, gen, spaces } = spaceOf(func);
      const space = spaces.find(isSplitK)!;
      const samples = [3, 4, 5, 6, 7, 8]
        .map((seed) => replayWithPostprocs(ctx, space.trace, gen.postprocs, { seed, freshDecisions: true }))
        .flatMap((o) => (o.ok ? [o.sch.func] : []));
      expect(samples.length).toBeGreaterThan(0);
      const cacheDir = mkdtempSync(join(tmpdir(), "tessera-split-k-nvcc-"));
      const builder = new LocalBuilder({ maxWorkers: 0, compile: "nvcc", cacheDir, timeoutSec: 300 });
      try {
        const [built] = await builder.build([{ func: samples[0]!, target: ctx.target }]);
        expect(built?.ok ? "" : built?.error).toBe("");
        const module = loweredModuleFor(samples[0]!)!;
        expect(module.kernels).toHaveLength(2);
        expect(module.workspaces).toHaveLength(1);
        const parts = module.workspaces[0]!.elements / (64 * 4096);
        expect([2, 4, 8, 16]).toContain(parts);
      } finally {
        await builder.dispose();
        rmSync(cacheDir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
