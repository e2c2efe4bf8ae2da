/**
 * The tensor-core design spaces' programs on a real GPU against the CPU executor (no test runner
 * needed): for the fp16 GEMMs at 256³ — float32 C (`mmaGemm`) and float16 C (`halfOutputGemm`, the
 * cast fused into the store) — fresh samples of every design space (mma.sync and wgmma) and the
 * wgmma configuration bench:tune's searches found best (128×256 tiles, 3 stages, TMA) are built
 * (LocalBuilder) and run (LocalRunner) once on seeded random inputs, each output checked against
 * the executor's (float16 outputs to two ulps: toleranceForDType). The simulator cannot check what
 * it does not run — the CUDA C of the intrinsics' helpers (the float32→float16 pair stores) — this does.
 * Prints one line per program and a summary; exits 1 when any program failed or disagreed.
 * From sources: `tsx --conditions=@tessera/source <this file> [--samples N]`; bundled as ms-gpu-space-check.
 */
import { parseArgs } from "node:util";
import { target } from "@tessera/codegen";
import { halfOutputGemm, mmaGemm } from "@tessera/corpus";
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { cuda } from "@tessera/runtime";
import {
  LocalBuilder,
  LocalRunner,
  argsInfoOf,
  defaultCudaSpaceGenerator,
  referenceChecker,
  replayWithPostprocs,
  tuneContext,
  withFp32Precision,
  workloadOf,
} from "../../src/index.js";
import { cpuReference } from "../../src/runner/checker.js";
import { withForcedDecisions } from "../space-gpu/forced-decisions.js";

const H100 = target("nvidia/h100");
/** The wgmma space's decisions in order: N, warps, pipeline lag (stages − 2), TMA loads, unroll budget. */
const BEST_WGMMA = [256, 8, 1, 1, 0];

interface Candidate {
  readonly name: string;
  readonly func: PrimFunc;
}

/** `samples` fresh samples of each design space of `func`, and the best wgmma configuration. */
function candidatesOf(label: string, func: PrimFunc, samples: number): Candidate[] {
  const ctx = tuneContext(workloadOf(func), H100, { seed: 7 });
  const gen = defaultCudaSpaceGenerator(H100);
  gen.initialize(ctx);
  const out: Candidate[] = [];
  gen.generateDesignSpace(ctx).forEach((space, k) => {
    for (let seed = 1; seed <= samples; seed++) {
      const r = replayWithPostprocs(ctx, space.trace, gen.postprocs, { seed, freshDecisions: true });
      if (r.ok) out.push({ name: `${label} space ${k} sample ${seed}`, func: r.sch.func });
    }
    if (k === 1) {
      const r = replayWithPostprocs(ctx, withForcedDecisions(space.trace, [], BEST_WGMMA), gen.postprocs, { seed: 1 });
      if (!r.ok) throw new Error(`${label}: the best wgmma configuration was rejected: ${r.reason}: ${r.detail}`);
      out.push({ name: `${label} wgmma 128×256, 3 stages, TMA`, func: r.sch.func });
    }
  });
  return out;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { samples: { type: "string", default: "4" } } });
  const samples = Number(values.samples);
  if (!Number.isInteger(samples) || samples < 0) throw new RangeError(`--samples must be a non-negative integer, got ${values.samples}`);
  const workloads = (
    [
      ["fp16 GEMM, float32 C", mmaGemm(256)],
      ["fp16 GEMM, float16 C", halfOutputGemm(256)],
      // The requested fp32 precisions: the tensor core's own adder sums within a 3xTF32 chunk, so the
      // GPU's bits may differ from the executor's in the last place (the checker's float32 tolerance).
      ["tf32 gemm+ReLU+add", withFp32Precision(gemmReluAdd(256).func, "tf32")],
      ["3xTF32 gemm+ReLU+add", withFp32Precision(gemmReluAdd(256).func, "3xtf32")],
    ] as const
  ).map(([label, func]) => ({ func, candidates: candidatesOf(label, func, samples) }));
  if (!cuda.available()) {
    const count = workloads.reduce((n, w) => n + w.candidates.length, 0);
    console.log(`gpu-space-check: ${count} programs sampled; not run, no CUDA: ${cuda.unavailableReason() ?? "unknown reason"}`);
    return;
  }
  let failed = 0;
  for (const { func, candidates } of workloads) {
    const builder = new LocalBuilder({ cacheDir: false });
    const built = await builder.build(candidates.map((c) => ({ func: c.func, target: H100 })));
    await builder.dispose();
    const runner = new LocalRunner({ timeoutSec: 30, checker: referenceChecker(cpuReference(func)) });
    const argsInfo = argsInfoOf(func);
    const ran = await runner.run(built.flatMap((b) => (b.ok ? [{ artifact: b.artifact, argsInfo }] : [])));
    await runner.dispose();
    let next = 0;
    built.forEach((b, k) => {
      const r = b.ok ? ran[next++]! : undefined;
      const verdict = !b.ok ? `build failed: ${b.error}` : r!.ok ? `ok, ${(r!.runSecs[0]! * 1e3).toFixed(4)} ms` : `FAILED: ${r!.error}`;
      if (!b.ok || !r!.ok) failed++;
      console.log(`${candidates[k]!.name}: ${verdict}`);
    });
  }
  console.log(failed === 0 ? "gpu-space-check: every program agrees with the executor" : `gpu-space-check: ${failed} program(s) failed`);
  if (failed > 0) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
