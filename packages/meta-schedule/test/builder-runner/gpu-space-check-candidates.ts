/**
 * The programs ms-gpu-space-check runs (gpu-space-check.ts), apart from the GPU so that a test can
 * sample them (no vitest import: the GPU entry bundles this): per workload, fresh samples of every
 * design space and, for the fp16 GEMMs, the wgmma configuration bench:tune's searches found best.
 */
import { target } from "@tessera/codegen";
import { halfGemmReluAdd, halfOutputGemm, mmaGemm } from "@tessera/corpus";
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, withFp32Precision, workloadOf } from "../../src/index.js";
import { withForcedDecisions } from "../space-gpu/forced-decisions.js";

export const SPACE_CHECK_TARGET = target("nvidia/h100");
/** The fp16 wgmma space's decisions in order: N, warps, pipeline lag (stages − 2), TMA loads, unroll budget. */
const BEST_WGMMA = [256, 8, 1, 1, 0];

export interface Candidate {
  readonly name: string;
  readonly func: PrimFunc;
}

export interface SpaceCheckWorkload {
  readonly func: PrimFunc;
  readonly candidates: readonly Candidate[];
}

/** The workloads at 256³ with `samples` samples of each of their spaces. */
export function spaceCheckWorkloads(samples: number): SpaceCheckWorkload[] {
  return (
    [
      ["fp16 GEMM, float32 C", mmaGemm(256), true],
      ["fp16 GEMM, float16 C", halfOutputGemm(256), true],
      // gemm+ReLU+add in fp16: the epilogue fused into the store (the f32 → f16 relu-add store helper).
      ["fp16 gemm+ReLU+add", halfGemmReluAdd(256, "float16").func, false],
      // The requested fp32 precisions: the tensor core's own adder sums within a 3xTF32 chunk (and the
      // wgmma space's three wgmmas sum in their own order), so the GPU's bits may differ from the
      // executor's in the last places (the checker's float32 tolerance).
      ["tf32 gemm+ReLU+add", withFp32Precision(gemmReluAdd(256).func, "tf32"), false],
      ["3xTF32 gemm+ReLU+add", withFp32Precision(gemmReluAdd(256).func, "3xtf32"), false],
    ] as const
  ).map(([label, func, bestWgmma]) => ({ func, candidates: candidatesOf(label, func, samples, bestWgmma) }));
}

/**
 * `samples` fresh samples of each design space of `func`, and with `bestWgmma` (the fp16 GEMMs,
 * whose space 1 is the fp16 wgmma space) the best wgmma configuration.
 */
function candidatesOf(label: string, func: PrimFunc, samples: number, bestWgmma: boolean): Candidate[] {
  const ctx = tuneContext(workloadOf(func), SPACE_CHECK_TARGET, { seed: 7 });
  const gen = defaultCudaSpaceGenerator(SPACE_CHECK_TARGET);
  gen.initialize(ctx);
  const out: Candidate[] = [];
  gen.generateDesignSpace(ctx).forEach((space, k) => {
    for (let seed = 1; seed <= samples; seed++) {
      const r = replayWithPostprocs(ctx, space.trace, gen.postprocs, { seed, freshDecisions: true });
      if (r.ok) out.push({ name: `${label} space ${k} sample ${seed}`, func: r.sch.func });
    }
    if (k === 1 && bestWgmma) {
      const r = replayWithPostprocs(ctx, withForcedDecisions(space.trace, [], BEST_WGMMA), gen.postprocs, { seed: 1 });
      if (!r.ok) throw new Error(`${label}: the best wgmma configuration was rejected: ${r.reason}: ${r.detail}`);
      out.push({ name: `${label} wgmma 128×256, 3 stages, TMA`, func: r.sch.func });
    }
  });
  return out;
}
