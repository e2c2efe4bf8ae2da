import { type LoweredModule, cudaTarget, lower, target } from "@tessera/codegen";
import { fastSchedule, manualSchedule, naiveSchedule, pipelinedGemmSchedule, scheduleCorpus } from "@tessera/corpus";
import { IRMutator, type PrimExpr, gemmReluAdd, isFloat } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type RunnerInput, type RunnerResult, SimulatedRunner, argsInfoOf, meanRunSecs } from "../../src/index.js";
import { estimateLatency } from "../../src/latency-model/latency-model.js";
import { gpuSpecOf } from "../../src/latency-model/gpu-spec.js";

function candidate(sch: Schedule | LoweredModule, targetName = "nvidia/h100"): RunnerInput {
  const lowered = "kernels" in sch ? sch : lower(sch, cudaTarget(targetName));
  return {
    artifact: {
      name: lowered.name,
      source: `${lowered.name}/${lowered.kernels.length}/${JSON.stringify(lowered.kernels.map((k) => k.launch))}`,
      kernels: lowered.kernels.map((k) => k.launch),
      lowered,
    },
    argsInfo: argsInfoOf(lowered.source),
  };
}

function secs(r: RunnerResult | undefined): readonly number[] {
  if (r === undefined || !r.ok) throw new Error(`expected run times, got ${r === undefined ? "nothing" : r.error}`);
  return r.runSecs;
}

/** Makes every floating-point addition a subtraction: a wrong kernel with the right shape. */
class BreakAdditions extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    const out = super.visitExpr(e);
    return out.kind === "Binary" && out.op === "add" && isFloat(out.dtype) ? { ...out, op: "sub" } : out;
  }
}

describe("SimulatedRunner", () => {
  // One lowering per schedule for the whole file: 2048³ lowering is the slow part.
  const at2048 = {
    naive: candidate(naiveSchedule(2048)),
    manual: candidate(manualSchedule(2048)),
    fast: candidate(fastSchedule(2048)),
  };

  it("ranks the corpus's gemm schedules at 2048³ as they rank on a GPU: naive slower than manual, manual slower than fast", async () => {
    const runner = new SimulatedRunner();
    const [naive, manual, fast] = (await runner.run([at2048.naive, at2048.manual, at2048.fast])).map((r) => meanRunSecs(r));
    expect(naive).toBeGreaterThan(manual!);
    expect(manual).toBeGreaterThan(fast!);
    // Each step is a large factor on a GPU (≈7× and ≈13× on an H200), not a rounding difference.
    expect(naive! / manual!).toBeGreaterThan(3);
    expect(manual! / fast!).toBeGreaterThan(5);
  });

  it("explains its estimate: the naive gemm is bound by uncoalesced global loads, the manual one by shared-memory bank conflicts", () => {
    const naive = estimateLatency(at2048.naive.artifact.lowered!).kernels[0]!;
    const manual = estimateLatency(at2048.manual.artifact.lowered!).kernels[0]!;
    expect(naive.bound).toBe("global");
    expect(manual.bound).toBe("shared");
    expect(manual.profile.sharedWavefronts).toBeGreaterThan(4 * manual.profile.idealSharedWavefronts);
    // 2·2048³ flops of the gemm, plus the ReLU and the add.
    expect(naive.profile.flops * naive.profile.threadsPerBlock * naive.profile.blocks).toBe(2 * 2048 ** 3 + 2 * 2048 ** 2);
  });

  it("counts asynchronous copies (cp.async) as global reads and shared writes, with the same footprint as plain copies", () => {
    const plain = estimateLatency(lower(pipelinedGemmSchedule(256), "nvidia/h100")).kernels[0]!.profile;
    const asyncCopies = lower(pipelinedGemmSchedule(256, { stages: [0, 0, 2], order: [0, 1, 2], asyncStages: [0] }), "nvidia/h100");
    expect(JSON.stringify(asyncCopies.kernels.map((k) => k.body))).toContain("ptx_cp_async");
    const profile = estimateLatency(asyncCopies).kernels[0]!.profile;
    expect(profile.globalFootprintBytes).toBe(4 * 4 * 256 * 256);
    expect(profile.globalFootprintBytes).toBe(plain.globalFootprintBytes);
    expect(profile.globalLines).toBeCloseTo(plain.globalLines, 6);
    expect(profile.sharedWavefronts).toBeCloseTo(plain.sharedWavefronts, 6);
  });

  it("estimates for the target it is given: a T4 is slower than an H100", async () => {
    const onT4 = new SimulatedRunner({ target: "nvidia/tesla-t4" });
    const onH100 = new SimulatedRunner();
    const [t4] = await onT4.run([at2048.manual]);
    const [h100] = await onH100.run([at2048.manual]);
    expect(secs(t4)[0]).toBeGreaterThan(secs(h100)[0]!);
  });

  it("is deterministic, and its seeded noise is too", async () => {
    const inputs = scheduleCorpus().map((e) => candidate(e.build()));
    const plain = await new SimulatedRunner({ repeat: 3 }).run(inputs);
    expect(await new SimulatedRunner({ repeat: 3 }).run(inputs)).toEqual(plain);
    for (const r of plain) expect(new Set(secs(r)).size).toBe(1);

    const noisy = await new SimulatedRunner({ repeat: 3, noise: { relative: 0.05, seed: 1 } }).run(inputs);
    expect(await new SimulatedRunner({ repeat: 3, noise: { relative: 0.05, seed: 1 } }).run(inputs)).toEqual(noisy);
    const reseeded = await new SimulatedRunner({ repeat: 3, noise: { relative: 0.05, seed: 2 } }).run(inputs);
    expect(reseeded).not.toEqual(noisy);
    noisy.forEach((r, i) => {
      const exact = secs(plain[i])[0]!;
      expect(new Set(secs(r)).size).toBe(3);
      for (const s of secs(r)) expect(Math.abs(Math.log(s / exact))).toBeLessThan(0.05 * 6);
    });
  });

  it("checks numerics in the GPU simulator on request, and fails a wrong kernel", async () => {
    const good = lower(naiveSchedule(32), "nvidia/h100");
    const mutator = new BreakAdditions();
    const broken: LoweredModule = { ...good, kernels: good.kernels.map((k) => ({ ...k, body: mutator.visitStmt(k.body) })) };
    const results = await new SimulatedRunner({ checkNumerics: true }).run([candidate(good), candidate(broken)]);
    expect(results[0]!.ok).toBe(true);
    expect(results[1]!.ok).toBe(false);
    expect(results[1]!.ok === false && results[1]!.error).toMatch(/wrong result in the simulator: .*mismatching element/);
  });

  it("checks numerics against the workload's unscheduled function when given one", async () => {
    const good = lower(naiveSchedule(32), "nvidia/h100");
    const scheduled = good.source;
    const mutator = new BreakAdditions();
    const wrongReference = { ...scheduled, body: mutator.visitStmt(scheduled.body) };
    const right = await new SimulatedRunner({ checkNumerics: { reference: gemmReluAdd(32).func } }).run([candidate(good)]);
    expect(right[0]!.ok).toBe(true);
    const wrong = await new SimulatedRunner({ checkNumerics: { reference: wrongReference } }).run([candidate(good)]);
    expect(wrong[0]!.ok === false && wrong[0]!.error).toMatch(/wrong result in the simulator/);
  });

  it("property: no estimate beats the GPU's FP32 peak or its DRAM bandwidth, for random manual schedules on random targets", () => {
    const params = fc.record({
      tileX: fc.constantFrom(32, 64),
      tileY: fc.constantFrom(32, 64),
      tileK: fc.constantFrom(8, 16),
      threadTileX: fc.constantFrom(2, 4),
      threadTileY: fc.constantFrom(2, 4),
      threadTileK: fc.constant(1),
    });
    fc.assert(
      fc.property(params, fc.constantFrom("nvidia/h100", "nvidia/a100", "nvidia/tesla-t4"), (p, targetName) => {
        const t = target(targetName);
        const spec = gpuSpecOf(t);
        const lowered = lower(manualSchedule(256, p), t);
        const estimate = estimateLatency(lowered);
        const flops = 2 * 256 ** 3;
        expect(estimate.seconds).toBeGreaterThanOrEqual(flops / (spec.smCount * spec.fp32LanesPerSM * 2 * spec.clockHz));
        expect(estimate.seconds).toBeGreaterThanOrEqual((4 * 4 * 256 * 256) / spec.dramBytesPerSec);
        // Deterministic: the same module gives the same number.
        expect(estimateLatency(lowered).seconds).toBe(estimate.seconds);
      }),
      { numRuns: 6, seed: 7 },
    );
  });

  it("fails a candidate without a lowered module with the reason", async () => {
    const [r] = await new SimulatedRunner().run([{ artifact: { name: "k", source: "", kernels: [] }, argsInfo: [] }]);
    expect(r).toEqual({ ok: false, error: expect.stringMatching(/k has no lowered module/) });
  });
});
