/**
 * `pnpm bench:cpu-tune`: tunes matmul for the C target with MetaSchedule's CPU design space —
 * TVM's LLVM rules MultiLevelTiling (SSRSRS, write cache "may" at levels 1 and 2) and
 * ParallelizeVectorizeUnroll, postprocessed by RewriteParallelVectorizeUnroll and
 * RewriteReductionBlock. The first half of the trials replay a design's trace with fresh random
 * decisions (TVM's ReplayTrace); the second half mutate one of the best measured traces
 * (MutateTileSize 0.9, MutateUnroll 0.05, MutateParallel 0.05: TVM's LLVM mutators, without the
 * cost model of its evolutionary search). Each candidate is compiled by the C target and
 * timed on this machine with the module's timeEvaluator (a CPU runner in process); its result is
 * checked against the hand-written schedule's. The best is compared with the hand-written d2l
 * schedule and NumPy/OpenBLAS in the same run; writes docs/benchmarks/cpu-tuning.{md,json}.
 *
 *   pnpm bench:cpu-tune [--n 1024] [--trials 48] [--seed 1]
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { target as gpuTarget } from "@tessera/codegen";
import { type PrimFunc, ops, randomArgs } from "@tessera/ir";
import { type HostModule, build, matmulCpu } from "@tessera/runtime";
import type { Trace } from "@tessera/schedule";
import {
  MutateTileSize,
  type ReplayOutcome,
  type TuneContext,
  type WeightedMutator,
  mutateParallel,
  mutateUnroll,
  PostOrderApply,
  ParallelizeVectorizeUnroll,
  RewriteParallelVectorizeUnroll,
  RewriteReductionBlock,
  disallowDynamicLoop,
  multiLevelTilingCpu,
  replayWithPostprocs,
  tuneContext,
  workloadOf,
} from "../src/index.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** TVM's DefaultLLVM rules and postprocs that this branch has. */
function cpuSpace(): { space: PostOrderApply; postprocs: ConstructorParameters<typeof PostOrderApply>[0]["postprocs"] } {
  const postprocs = [disallowDynamicLoop(), new RewriteParallelVectorizeUnroll(), new RewriteReductionBlock()];
  const space = new PostOrderApply({
    rules: [
      multiLevelTilingCpu(),
      new ParallelizeVectorizeUnroll({ maxJobsPerCore: 16, maxVectorizeExtent: 64, unrollMaxSteps: [0, 16, 64, 512], unrollExplicit: true, sampleExplicit: false }),
    ],
    postprocs,
    mutators: [],
  });
  return { space, postprocs };
}

/** One mutation, the mutator drawn by weight; undefined when it finds nothing to change. */
function mutateOnce(trace: Trace, mutators: readonly WeightedMutator[], ctx: TuneContext): { trace: Trace; name: string } | undefined {
  const total = mutators.reduce((s, m) => s + m.probability, 0);
  let x = ctx.rng.uniform() * total;
  for (const m of mutators) {
    x -= m.probability;
    if (x <= 0) {
      const t = m.mutator.apply(trace, ctx.rng, ctx);
      return t === undefined ? undefined : { trace: t, name: m.mutator.name };
    }
  }
  return undefined;
}

async function timeModule(mod: HostModule, args: Float32Array[]): Promise<number> {
  const t = await mod.timeEvaluator({ number: 1, repeat: 3, minRepeatMs: 20 })(...args);
  return t.median;
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!) / (1 + Math.abs(b[i]!)));
  return d;
}

function numpyMatmulMs(n: number, threads: "default" | "1"): number {
  const code = `import numpy as np, time
n=${n}; a=np.random.rand(n,n).astype(np.float32); b=np.random.rand(n,n).astype(np.float32); c=np.empty((n,n),np.float32)
np.dot(a,b,out=c); s=[]
for _ in range(5):
  t=time.perf_counter(); np.dot(a,b,out=c); np.dot(a,b,out=c); np.dot(a,b,out=c); s.append((time.perf_counter()-t)/3)
s.sort(); print(s[2]*1e3)`;
  const env = threads === "1" ? { ...process.env, OPENBLAS_NUM_THREADS: "1" } : process.env;
  return Number(execFileSync("/usr/bin/python3", ["-c", code], { encoding: "utf8", env }).trim());
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { n: { type: "string", default: "1024" }, trials: { type: "string", default: "48" }, seed: { type: "string", default: "1" } } });
  const n = Number(values.n);
  const trials = Number(values.trials);
  const seed = Number(values.seed);
  const func = ops.matmul(n, n, n).func;
  const flops = 2 * n * n * n;
  const gflops = (ms: number): number => flops / ms / 1e6;
  // The space's rules read only the thread count from the context; the GPU target is a placeholder.
  const ctx = tuneContext(workloadOf(func), gpuTarget("cuda"), { seed, numThreads: os.cpus().length });
  const { space, postprocs } = cpuSpace();
  space.initialize(ctx);
  const designs = space.generateDesignSpace(ctx);
  const args = randomArgs(func, 3) as Float32Array[];
  const hand = await build(matmulCpu(n).scheduled, "c");
  hand(...args);
  const expected = args[2]!.slice();
  const handMs = await timeModule(hand, args);
  console.log(`hand-written schedule: ${gflops(handMs).toFixed(1)} GFLOPS; ${designs.length} design spaces`);

  const history: { trial: number; ms: number | null; how: string; error?: string }[] = [];
  let best: { ms: number; func: PrimFunc; trial: number } | undefined;
  const measured: { ms: number; trace: Trace }[] = [];
  const mutators: WeightedMutator[] = [
    { mutator: new MutateTileSize(), probability: 0.9 },
    { mutator: mutateUnroll(), probability: 0.05 },
    { mutator: mutateParallel({ maxJobsPerCore: 16 }), probability: 0.05 },
  ];
  for (const m of mutators) m.mutator.initialize?.(ctx);
  for (let trial = 0; trial < trials; trial++) {
    const runSeed = seed * 100003 + trial;
    let outcome: ReplayOutcome;
    let how: string;
    if (trial < trials / 2 || measured.length === 0) {
      const design = designs[trial % designs.length]!;
      how = `replay design ${trial % designs.length}`;
      outcome = replayWithPostprocs(ctx, design.trace, postprocs, { freshDecisions: true, seed: runSeed });
    } else {
      // Mutate one of the three best so far (the best most often).
      measured.sort((a, b) => a.ms - b.ms);
      const parent = measured[Math.min(measured.length - 1, Math.floor(ctx.rng.uniform() ** 2 * 3))]!;
      const mutated = mutateOnce(parent.trace, mutators, ctx);
      how = mutated === undefined ? "mutation found nothing to change" : `mutate (${mutated.name})`;
      outcome = mutated === undefined ? { ok: false, reason: how, detail: how } : replayWithPostprocs(ctx, mutated.trace, postprocs, { seed: runSeed });
    }
    if (!outcome.ok) {
      history.push({ trial, ms: null, how, error: outcome.reason });
      continue;
    }
    try {
      const mod = await build(outcome.sch.func, "c");
      args[2]!.fill(Number.NaN);
      mod(...args);
      const err = maxDiff(args[2]!, expected);
      if (!(err < 1e-3)) throw new Error(`wrong result (max relative difference ${err})`);
      const ms = await timeModule(mod, args);
      mod.dispose();
      history.push({ trial, ms, how });
      measured.push({ ms, trace: outcome.sch.trace });
      if (best === undefined || ms < best.ms) best = { ms, func: outcome.sch.func, trial };
      console.log(`trial ${trial} (${how}): ${gflops(ms).toFixed(1)} GFLOPS (best ${gflops(best.ms).toFixed(1)})`);
    } catch (e) {
      history.push({ trial, ms: null, how, error: e instanceof Error ? e.message.split("\n")[0]! : String(e) });
      console.log(`trial ${trial}: failed: ${history[history.length - 1]!.error}`);
    }
  }
  if (best === undefined) throw new Error("bench:cpu-tune: no candidate built and ran");
  // Measure the finalists again back to back with NumPy, so the ratios come from one stretch of load.
  const bestMod = await build(best.func, "c");
  const tunedMs = await timeModule(bestMod, args);
  const handAgainMs = await timeModule(hand, args);
  const npDefault = numpyMatmulMs(n, "default");
  const npSingle = numpyMatmulMs(n, "1");
  const npMs = Math.min(npDefault, npSingle);
  const load = os.loadavg().map((x) => x.toFixed(2)).join(", ");
  const summary = {
    n,
    trials,
    seed,
    designSpaces: designs.length,
    failed: history.filter((h) => h.ms === null).length,
    handGflops: gflops(handAgainMs),
    tunedGflops: gflops(tunedMs),
    numpyGflops: { allThreads: gflops(npDefault), oneThread: gflops(npSingle) },
    handOverNumpy: npMs / handAgainMs,
    tunedOverNumpy: npMs / tunedMs,
    bestTrial: best.trial,
    loadAverage: load,
  };
  console.log(summary);
  const outDir = join(repoRoot, "docs", "benchmarks");
  writeFileSync(join(outDir, "cpu-tuning.json"), `${JSON.stringify({ summary, history, bestSource: bestMod.source }, null, 2)}\n`);
  const md = [
    `# Tuning matmul ${n}³ for the C target with MetaSchedule's CPU space`,
    "",
    "Generated by `pnpm bench:cpu-tune` (packages/meta-schedule/bench/cpu-tune.bench.ts): TVM's LLVM rules",
    "MultiLevelTiling (SSRSRS) and ParallelizeVectorizeUnroll with RewriteParallelVectorizeUnroll and",
    "RewriteReductionBlock. Half the trials replay the design spaces' traces with fresh decisions (TVM's",
    "ReplayTrace), half mutate one of the three best measured traces (MutateTileSize, MutateUnroll,",
    "MutateParallel; no cost model). Each candidate is compiled by the C target, checked",
    "against the hand-written schedule's result and timed in process (timeEvaluator, median of 3 samples).",
    "The best candidate, the hand-written schedule and NumPy are measured again at the end, back to back.",
    "",
    `**Noise:** 2 shared cores, load average ${load} at the end: the numbers are noisy.`,
    "",
    "| | GFLOPS | vs NumPy (faster of all threads / 1 thread) |",
    "|---|---|---|",
    `| NumPy np.dot (OpenBLAS sgemm), all threads | ${gflops(npDefault).toFixed(1)} | |`,
    `| NumPy np.dot (OpenBLAS sgemm), 1 thread | ${gflops(npSingle).toFixed(1)} | |`,
    `| hand-written d2l schedule (matmulCpu) | ${gflops(handAgainMs).toFixed(1)} | ${(npMs / handAgainMs).toFixed(2)}× |`,
    `| tuned (best of ${trials} trials, trial ${best.trial}) | ${gflops(tunedMs).toFixed(1)} | ${(npMs / tunedMs).toFixed(2)}× |`,
    "",
    `${summary.failed} of ${trials} trials failed (reasons in cpu-tuning.json); ${designs.length} design spaces.`,
    "",
  ].join("\n");
  writeFileSync(join(outDir, "cpu-tuning.md"), md);
  bestMod.dispose();
  hand.dispose();
  console.log(`wrote ${join(outDir, "cpu-tuning.md")}`);
}

await main();
