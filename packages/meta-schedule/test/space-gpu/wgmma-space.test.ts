/**
 * MultiLevelTilingTensorCore's wgmma design space (sm_90): offered beside the mma.sync space on an
 * H100, not on an A100 (whose space, like the H100's mma.sync one, is the space without wgmma
 * groups); the hand wgmma schedule's configuration is a point of it (its decisions replay to the
 * same CUDA as `wgmmaGemmSchedule` with WGMMA_PARAMS); the mutators reach each decision;
 * RewriteTensorize's choice among the intrinsics of a sampled N; and the options' errors.
 */
import { type CudaTarget, codegenCuda, lower, target } from "@tessera/codegen";
import { WGMMA_PARAMS, mmaGemm, wgmmaGemm, wgmmaGemmSchedule } from "@tessera/corpus";
import { printTVMScript } from "@tessera/ir";
import { RandomEngine, Schedule, wgmmaIntrinName } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { type Mutator, replayWithPostprocs } from "../../src/index.js";
import { MutateGemmKnob } from "../../src/mutator/mutate-gemm-knob.js";
import { MutateTileSize } from "../../src/mutator/mutate-tile-size.js";
import { RewriteTensorize } from "../../src/postproc/rewrite-tensorize.js";
import { multiLevelTilingTensorCore } from "../../src/rules/multi-level-tiling-tensor-core/index.js";
import { AUTO_TENSORIZE } from "../../src/schedule-utils/annotations.js";
import { H100, spaceOf, withForcedDecisions } from "./helpers.js";

const A100: CudaTarget = target("nvidia/a100");

const scriptsOf = (spaces: readonly { func: Parameters<typeof printTVMScript>[0] }[]) => spaces.map((s) => printTVMScript(s.func));

describe("the wgmma design space", () => {
  it("is offered beside the mma.sync space on sm_90; the mma.sync space is the one without wgmma groups", () => {
    const withWgmma = spaceOf(mmaGemm(128));
    const without = spaceOf(mmaGemm(128), { tensorCore: { wgmmaGroups: [] } });
    expect(withWgmma.spaces).toHaveLength(2);
    expect(without.spaces).toHaveLength(1);
    expect(printTVMScript(withWgmma.spaces[0]!.func)).toBe(printTVMScript(without.spaces[0]!.func));
    expect(withWgmma.spaces[0]!.trace.toString()).toBe(without.spaces[0]!.trace.toString());
    const wgmma = printTVMScript(withWgmma.spaces[1]!.func);
    expect(wgmma).toContain(`"${AUTO_TENSORIZE}": ["${wgmmaIntrinName(64)}", "${wgmmaIntrinName(128)}", "${wgmmaIntrinName(256)}"]`);
    expect(wgmma).toContain('"meta_schedule.wgmma_shared_layout": "K"');
    expect(wgmma).toContain('"meta_schedule.wgmma_shared_layout": "MN"');
  });

  it("is not offered on sm_80: an A100's space is the space without wgmma groups", () => {
    const a100 = spaceOf(mmaGemm(128), {}, A100);
    const without = spaceOf(mmaGemm(128), { tensorCore: { wgmmaGroups: [] } }, A100);
    expect(a100.spaces).toHaveLength(1);
    expect(scriptsOf(a100.spaces)).toEqual(scriptsOf(without.spaces));
    expect(a100.spaces[0]!.trace.toString()).toBe(without.spaces[0]!.trace.toString());
    expect(scriptsOf(a100.spaces)[0]).not.toContain("wgmma");
  });

  it("samples N among the instructions that tile j, whole warpgroups that tile i, 1, 3 or 4 stages, and TMA or cp.async loads", () => {
    const { spaces } = spaceOf(mmaGemm(128));
    const samples = spaces[1]!.trace.instructions.filter((i) => i.kind.name === "SampleCategorical").map((i) => i.attrs[0]);
    // N = 256 does not divide 128; lags 0, 1, 2 are 1, 3 and 4 stages; cp.async (0) or TMA (1); then the unroll budget.
    expect(samples.slice(0, 4)).toEqual([
      [64, 128],
      [4, 8],
      [0, 1, 2],
      [0, 1],
    ]);
  });

  it("holds the hand schedule: two warpgroups of 64×256, 3 stages replay to wgmmaGemmSchedule's CUDA with WGMMA_PARAMS", () => {
    const n = 256;
    const { ctx, gen, spaces } = spaceOf(wgmmaGemm(n));
    for (const tma of [false, true]) {
      // N, warps per block, the pipeline's lag (stages − 2), TMA loads or cp.async, the unroll budget (none).
      const trace = withForcedDecisions(spaces[1]!.trace, [], [WGMMA_PARAMS.n, 4 * WGMMA_PARAMS.warpgroups, WGMMA_PARAMS.pipelineStages - 2, tma ? 1 : 0, 0]);
      const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
      expect(out.ok ? "ok" : `${out.reason}: ${out.detail}`).toBe("ok");
      if (!out.ok) return;
      const searched = codegenCuda(lower(out.sch.func, "nvidia/h100")).source;
      const hand = codegenCuda(lower(wgmmaGemmSchedule(n, { ...WGMMA_PARAMS, tma }).func, "nvidia/h100")).source;
      expect(searched).toContain("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16");
      expect(searched.includes("cp.async.bulk.tensor.2d")).toBe(tma);
      expect(searched.includes("cp.async.cg.shared.global")).toBe(!tma);
      expect(searched).toBe(hand);
    }
  });

  // Regression: with one stage (no pipeline) the tiles are written by plain stores, and no
  // fence.proxy.async ordered them before the tensor cores' async-proxy reads: on an H200 that
  // candidate computed wrong results (session 14). Every depth must fence every generic write.
  it.each([0, 1, 2])("fences the threads' shared writes before the wgmmas read them, at lag %i", (lag) => {
    const { ctx, gen, spaces } = spaceOf(mmaGemm(128));
    const trace = withForcedDecisions(spaces[1]!.trace, [], [128, 4, lag, 0, 0]);
    const out = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
    expect(out.ok ? "ok" : `${out.reason}: ${out.detail}`).toBe("ok");
    if (!out.ok) return;
    const lines = codegenCuda(lower(out.sch.func, "nvidia/h100")).source.split("\n");
    const sharedWrite = /buf_dyn_shmem\[[^\]]*\] = |tessera_cp_async_16\(buf_dyn_shmem/;
    let unfenced: number | undefined;
    let wgmmaIssues = 0;
    lines.forEach((line, i) => {
      if (sharedWrite.test(line)) unfenced = i;
      if (line.includes("fence.proxy.async.shared::cta")) unfenced = undefined;
      if (line.includes("tessera_wgmma_fence();")) {
        wgmmaIssues++;
        expect(unfenced === undefined ? "fenced" : `line ${unfenced + 1} unfenced: ${lines[unfenced]!.trim().slice(0, 80)}`).toBe("fenced");
      }
    });
    expect(wgmmaIssues).toBeGreaterThan(0);
  });

  it("lets the search move each decision: MutateTileSize N and the warps (split factors), MutateGemmKnob the depth and the loads", () => {
    const { ctx, spaces } = spaceOf(wgmmaGemm(256));
    const trace = withForcedDecisions(spaces[1]!.trace, [], [256, 8, 1, 0, 0]);
    const samples = trace.instructions.filter((i) => i.kind.name === "SampleCategorical").slice(0, 4);
    const moved = (mutator: Mutator) => {
      const changed = new Set<number>();
      for (let seed = 1; seed <= 40; seed++) {
        const out = mutator.apply(trace, new RandomEngine(seed), ctx);
        if (out === undefined) continue;
        samples.forEach((inst, k) => {
          // A mutation keeps the instructions and replaces decisions.
          const after = out.instructions[trace.instructions.indexOf(inst)]!;
          if (out.decisions.get(after) !== trace.decisions.get(inst)) changed.add(k);
        });
      }
      return [...changed].sort();
    };
    expect(moved(new MutateTileSize())).toEqual([0, 1]);
    expect(moved(new MutateGemmKnob())).toEqual([2, 3]);
  });

  it("pipelines only as deep as the shared memory holds, counting the version the asynchronous wgmmas still read", () => {
    // 128×64 + 64×256 fp16 tiles: 48 KiB a stage; 4 stages (lag 2) need 192 KiB, more than 150.
    const small: CudaTarget = { ...H100, maxSharedMemoryPerBlockOptin: 150 * 1024 };
    const { ctx, gen, spaces } = spaceOf(wgmmaGemm(256), {}, small);
    const out = replayWithPostprocs(ctx, withForcedDecisions(spaces[1]!.trace, [], [256, 8, 2, 0, 0]), gen.postprocs, { seed: 1 });
    // Regression: counting lag + 1 versions (144 KiB) kept the pipeline, and lowering then exceeded the limit.
    expect(out.ok ? "ok" : `${out.reason}: ${out.detail}`).toBe("ok");
    if (out.ok) expect(printTVMScript(out.sch.func)).not.toContain("software_pipeline_stage");
  });

  it("refuses wgmma options that are not warpgroup counts or usable depths, naming the option", () => {
    expect(() => multiLevelTilingTensorCore({ wgmma: { warpgroups: [0], pipelineStages: [3] } })).toThrow(
      /wgmma\.warpgroups must be positive integers, got \[0\]/,
    );
    expect(() => multiLevelTilingTensorCore({ wgmma: { warpgroups: [2], pipelineStages: [2] } })).toThrow(
      /wgmma\.pipelineStages must be 1 or integers ≥ 3.*got \[2\]/,
    );
    expect(() => multiLevelTilingTensorCore({ wgmma: { warpgroups: [2], pipelineStages: [3], loads: [] } })).toThrow(
      /wgmma\.loads must be "cp\.async" or "tma", got \[\]/,
    );
  });
});

describe("RewriteTensorize with several intrinsics on a block", () => {
  /** The rule's wgmma space alone at 128³ with N = 128 (j's whole extent). */
  function wgmmaApplied(): Schedule {
    const { ctx } = spaceOf(mmaGemm(128));
    const sch = new Schedule(mmaGemm(128), { seed: 3 });
    const [, wgmma] = multiLevelTilingTensorCore({ wgmma: { warpgroups: [1], pipelineStages: [1] } }).apply(sch, sch.getBlock("C"), ctx);
    return wgmma!;
  }

  it("applies the one whose description matches the block", () => {
    const sch = wgmmaApplied();
    const n = sch.trace.instructions.find((i) => i.kind.name === "SampleCategorical")!;
    const chosen = (n.attrs[0] as number[])[sch.trace.decisions.get(n) as number];
    expect(new RewriteTensorize().apply(sch)).toEqual({ ok: true });
    expect(printTVMScript(sch.func)).toContain(`T.ptx.wgmma_mma_async_ss("m64n${chosen}k16"`);
  });

  it("rejects the candidate when none matches, naming the block and every intrinsic tried", () => {
    const sch = wgmmaApplied();
    const compute = sch.getBlock("C_o");
    sch.unannotate(compute, AUTO_TENSORIZE);
    sch.annotate(compute, AUTO_TENSORIZE, [wgmmaIntrinName(256)]);
    const out = new RewriteTensorize().apply(sch);
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.reason).toBe(`tensorize with ${wgmmaIntrinName(256)} failed`);
    expect(out.detail).toMatch(/^block C_o: /);
  });
});
