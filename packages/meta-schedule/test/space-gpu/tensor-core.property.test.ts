/**
 * Property: a random sample of the default CUDA space of an fp16 matmul (fp32 accumulation) at
 * 128³ — MultiLevelTilingTensorCore's ldmatrix + mma.sync tiling, fresh decisions — is rejected
 * with a reason, or is tensorized, lowers, and runs in the GPU simulator bit for bit equal to the
 * executor with no race; so does a mutation of a valid sample. Samples draw padded and XOR-swizzled
 * shared tiles (the swizzle's accesses then run through the map in the simulator).
 */
import { printTVMScript } from "@tessera/ir";
import { mmaGemm } from "@tessera/corpus";
import type { Schedule } from "@tessera/schedule";
import { RandomEngine } from "@tessera/schedule";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Mutator, type ReplayOutcome, replayWithPostprocs } from "../../src/index.js";
import { MutateGemmKnob } from "../../src/mutator/mutate-gemm-knob.js";
import { MutateTileSize } from "../../src/mutator/mutate-tile-size.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { spaceOf } from "./helpers.js";

const func = mmaGemm(128);
// The mma.sync space (the wgmma one offered beside it on sm_90 is wgmma-space.property.test.ts's).
const { ctx, gen, spaces } = spaceOf(func, { tensorCore: { wgmmaGroups: [] } });

/** Tensorized (every 16×16 tile an intrinsic call) and equal bit for bit to the executor in the simulator. */
function checkTensorCoreSample(out: ReplayOutcome, seed: number): "simulated" | "rejected" {
  if (!out.ok) {
    expect(out.reason.length).toBeGreaterThan(0);
    return "rejected";
  }
  expectTensorized(out.sch);
  const module = loweredModuleFor(out.sch.func);
  expect(module, "VerifyGPUCode keeps the lowered module").toBeDefined();
  const report = compareWithReference(module!, func, { seed, rtol: 0, atol: 0 });
  expect(report.passed, formatComparison(report)).toBe(true);
  expect(report.simulation.raceCount).toBe(0);
  expect(report.simulation.uninitializedReadCount).toBe(0);
  return "simulated";
}

function expectTensorized(sch: Schedule): void {
  const script = printTVMScript(sch.func);
  for (const call of ["T.ptx_legacy.ldmatrix(", "T.ptx_legacy.mma(", "T.cuda.mma_fill_legacy(", "T.cuda.mma_store_legacy("]) expect(script).toContain(call);
  expect(script).not.toContain("meta_schedule.auto_tensorize");
}

describe("random samples of the tensor-core space of an fp16 matmul at 128³", () => {
  it("are rejected with a reason, or are tensorized and simulate bit for bit equal to the executor", () => {
    expect(spaces).toHaveLength(1);
    const tally = { simulated: 0, rejected: 0, pipelined: 0, swizzled: 0, padded: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const out = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
        tally[checkTensorCoreSample(out, seed)]++;
        const script = out.ok ? printTVMScript(out.sch.func) : "";
        if (script.includes('"software_pipeline_async_stages": [0]')) tally.pipelined++;
        if (script.includes('"buffer_swizzle"')) tally.swizzled++;
        if (script.includes('"buffer_dim_align"')) tally.padded++;
      }),
      { numRuns: 8, seed: 5 },
    );
    expect(tally.simulated).toBeGreaterThan(4);
    // Some samples double-buffer the shared tiles with cp.async; some swizzle a shared tile, some pad one.
    expect(tally.pipelined).toBeGreaterThan(0);
    expect(tally.swizzled).toBeGreaterThan(0);
    expect(tally.padded).toBeGreaterThan(0);
  }, 180_000);

  it("mutate into traces that replay and simulate bit for bit, or are rejected with a reason", () => {
    const mutators: Mutator[] = [new MutateTileSize(), new MutateGemmKnob()];
    const tally = { simulated: 0, rejected: 0, unchanged: 0 };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.nat(1), (seed, which) => {
        const first = replayWithPostprocs(ctx, spaces[0]!.trace, gen.postprocs, { seed, freshDecisions: true });
        if (!first.ok) return;
        const mutated = mutators[which]!.apply(first.sch.trace, new RandomEngine(seed), ctx);
        if (mutated === undefined) {
          tally.unchanged++;
          return;
        }
        tally[checkTensorCoreSample(replayWithPostprocs(ctx, mutated, gen.postprocs, { seed }), seed)]++;
      }),
      { numRuns: 6, seed: 9 },
    );
    expect(tally.simulated).toBeGreaterThan(2);
  }, 180_000);
});
