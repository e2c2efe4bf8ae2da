/**
 * Property: a random sample of MultiLevelTilingTensorCore's wgmma design space of an fp16 matmul
 * (fp32 accumulation) at 128³ on an H100 — N, warpgroups and pipeline depth drawn fresh — is
 * rejected with a reason, or is tensorized with wgmma, lowers, and runs in the GPU simulator (which
 * reads A and B through the descriptors and the hardware swizzle, and keeps each wgmma group in
 * flight until a wait retires it) bit for bit equal to the executor, with no race. And every
 * configuration of the space at 256³ (3 N × 2 warpgroup counts × 3 depths, the pipelined ones with
 * cp.async and with TMA loads) does.
 */
import { mmaGemm } from "@tessera/corpus";
import { printTVMScript } from "@tessera/ir";
import { compareWithReference, formatComparison } from "@tessera/simulator";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { replayWithPostprocs } from "../../src/index.js";
import { loweredModuleFor } from "../../src/postproc/verify-gpu-code.js";
import { spaceOf, withForcedDecisions } from "./helpers.js";

const func = mmaGemm(128);
const { ctx, gen, spaces } = spaceOf(func);

describe("random samples of the wgmma space of an fp16 matmul at 128³", () => {
  it("are rejected with a reason, or are tensorized with wgmma and simulate bit for bit equal to the executor", () => {
    expect(spaces).toHaveLength(2);
    const tally = { simulated: 0, rejected: 0, pipelined: 0, tma: 0, n: new Set<string>(), warps: new Set<number>() };
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), (seed) => {
        const out = replayWithPostprocs(ctx, spaces[1]!.trace, gen.postprocs, { seed, freshDecisions: true });
        if (!out.ok) {
          expect(out.reason.length).toBeGreaterThan(0);
          tally.rejected++;
          return;
        }
        const script = printTVMScript(out.sch.func);
        for (const knob of [
          "meta_schedule.auto_tensorize",
          "meta_schedule.wgmma_shared_layout",
          "meta_schedule.software_pipeline",
          "meta_schedule.software_pipeline_tma",
        ])
          expect(script).not.toContain(knob);
        const shape = /T\.ptx\.wgmma_mma_async_ss\("(m64n\d+k16)"/.exec(script);
        expect(shape, "the compute is tensorized with wgmma").not.toBeNull();
        tally.n.add(shape![1]!);
        if (script.includes('"software_pipeline_async_stages": [0]')) tally.pipelined++;
        if (script.includes('"tma_copy": 1')) tally.tma++;
        const module = loweredModuleFor(out.sch.func);
        expect(module, "VerifyGPUCode keeps the lowered module").toBeDefined();
        tally.warps.add(module!.kernels[0]!.launch.block[1] ?? 1);
        const report = compareWithReference(module!, func, { seed, rtol: 0, atol: 0 });
        expect(report.passed, formatComparison(report)).toBe(true);
        expect(report.simulation.raceCount).toBe(0);
        expect(report.simulation.uninitializedReadCount).toBe(0);
        tally.simulated++;
      }),
      { numRuns: 10, seed: 17 },
    );
    expect(tally.simulated).toBeGreaterThan(3);
    // The samples cover both N (64, 128), both warpgroup counts and a pipelined k loop.
    expect(tally.n.size).toBe(2);
    expect(tally.warps.size).toBe(2);
    expect(tally.pipelined).toBeGreaterThan(0);
  }, 300_000);
});

describe("every configuration of the wgmma space of an fp16 matmul at 256³", () => {
  it("simulates bit for bit equal to the executor, with no race (30 programs: N 64/128/256, 4/8 warps, 1/3/4 stages, the pipelined ones with cp.async or TMA)", () => {
    const big = mmaGemm(256);
    const space = spaceOf(big);
    const failures: string[] = [];
    for (const n of [64, 128, 256])
      for (const warps of [4, 8])
        for (const [lag, tma] of [
          [0, 0],
          [1, 0],
          [2, 0],
          [1, 1],
          [2, 1],
        ] as const) {
          const trace = withForcedDecisions(space.spaces[1]!.trace, [], [n, warps, lag, tma, 0]);
          const out = replayWithPostprocs(space.ctx, trace, space.gen.postprocs, { seed: 1 });
          const what = `N ${n}, ${warps} warps, lag ${lag}${tma === 1 ? ", TMA" : ""}`;
          if (!out.ok) {
            failures.push(`${what}: ${out.reason}`);
            continue;
          }
          const module = loweredModuleFor(out.sch.func)!;
          const loadsWithTma = module.kernels.some((k) => k.params.some((p) => p.kind === "buffer" && p.tensorMap !== undefined));
          if (loadsWithTma !== (tma === 1)) failures.push(`${what}: ${loadsWithTma ? "" : "no "}TMA loads in the kernel`);
          const report = compareWithReference(module, big, { seed: 3, rtol: 0, atol: 0 });
          if (!report.passed || report.simulation.raceCount > 0) failures.push(`${what}: ${formatComparison(report)}`);
        }
    expect(failures).toEqual([]);
  }, 600_000);
});
