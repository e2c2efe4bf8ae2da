/**
 * Regression: on extents no tile divides (1000³ on the GPU), samples that turn on operand slices
 * (register copies of the shared tiles) were refused by cache_read's region-cover check, which
 * could not prove cover through the padding guard's `min`; about 30% of 1000³'s samples died.
 * Now every such sample is kept and simulates equal to the executor.
 */
import { matmul, printTVMScript } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { spatialTileCandidates } from "../../src/rules/multi-level-tiling/tile-candidates.js";
import { checkSimulatedOrRejected, spaceOf } from "./helpers.js";

describe("padded tiles with operand slices", () => {
  it("are kept by RewriteOperandSlices and simulate equal to the executor", () => {
    const func = matmul(127, 63, 12).func;
    expect(spatialTileCandidates(127, 8, 32, [2, 4, 8]).padded).toBe(true);
    const { ctx, gen, spaces } = spaceOf(func);
    let simulated = 0;
    for (let seed = 1; seed <= 30; seed++) {
      const out = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
      expect(out.ok ? "" : out.reason).not.toMatch(/rewriteOperandSlices/);
      // Simulating is the slow part: three samples with slices are enough.
      if (simulated < 3 && out.ok && /_shared_local/.test(printTVMScript(out.sch.func))) {
        expect(checkSimulatedOrRejected(out, func, seed)).toBe("simulated");
        simulated++;
      }
    }
    expect(simulated).toBe(3);
  }, 120_000);
});
