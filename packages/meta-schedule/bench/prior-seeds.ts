/**
 * The built-in prior seeds (database/prior-seeds.ts: the 2048³ winners) moved onto other GEMM
 * workloads, judged offline by the analytic latency model (the hybrid cost model's prior) against
 * the best of N fresh samples of the same space and, where a recorded 64-trial run exists, its
 * measured best program.
 * Run: node --conditions=@tessera/source --import tsx packages/meta-schedule/bench/prior-seeds.ts [N] [--target NAME] [--workloads a,b]
 */
import { cudaTarget } from "@tessera/codegen";
import type { Trace } from "@tessera/schedule";
import { isPriorSource, seedsFromPriors } from "../src/database/prior-seeds.js";
import { defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";
import { type LatencyEstimate, estimateLatency } from "../src/latency-model/index.js";
import { loweredModuleFor } from "../src/postproc/verify-gpu-code.js";
import { readReportText } from "./report-files.js";
import { benchWorkload } from "./workloads.js";

const samples = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 100);
const option = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
};
const t = cudaTarget(option("--target", "nvidia/h200"), {}, "prior-seeds");
const names = option("--workloads", "matmul_4096,batch_matmul_16x512,matmul_1000,matmul_1024,matmul_4096x1024x4096").split(",");
const RECORDED = "docs/benchmarks/tuning-workloads-64-2026-11-29";

function describe(e: LatencyEstimate): string {
  return e.kernels.map((k) => `${k.profile.blocks}×${k.profile.threadsPerBlock}`).join("+");
}

/** The measured best program of the recorded 64-trial run of `name`, as its decisions (indices). */
function recordedBest(name: string): readonly (number | readonly number[])[] | undefined {
  try {
    const report = JSON.parse(readReportText(`${RECORDED}/tuning-64-${name}.json.gz`)) as { tuned: { top: { decisions: (number | number[])[] }[] }[] };
    return report.tuned[0]?.top[0]?.decisions;
  } catch {
    return undefined;
  }
}

function withIndices(space: Trace, decisions: readonly (number | readonly number[])[]): Trace | undefined {
  let out = space;
  const sampling = space.instructions.filter((i) => i.kind.name === "SampleCategorical" || i.kind.name === "SamplePerfectTile");
  if (sampling.length !== decisions.length) return undefined;
  sampling.forEach((inst, k) => (out = out.withDecision(inst, decisions[k]!)));
  return out;
}

console.log(`| workload | best of ${samples} samples (ms, grid×block) | recorded 64-trial best, estimated | prior seeds (ms, grid×block) |`);
console.log("|---|---|---|---|");
for (const name of names) {
  const ctx = tuneContext(workloadOf(benchWorkload(name).func()), t, { seed: 1 });
  const space = defaultCudaSpaceGenerator(t, {});
  space.initialize(ctx);
  const designs = space.generateDesignSpace(ctx).map((d) => d.trace);
  const estimate = (trace: Trace, seed: number, fresh: boolean): LatencyEstimate | undefined => {
    const out = replayWithPostprocs(ctx, trace, space.postprocs, { seed, freshDecisions: fresh });
    const module = out.ok ? loweredModuleFor(out.sch.func) : undefined;
    return module === undefined ? undefined : estimateLatency(module, t);
  };
  let best: LatencyEstimate | undefined;
  for (let seed = 1; seed <= samples; seed++) {
    const e = estimate(designs[0]!, seed, true);
    if (e !== undefined && (best === undefined || e.seconds < best.seconds)) best = e;
  }
  const show = (e: LatencyEstimate | undefined) => (e === undefined ? "invalid" : `${(e.seconds * 1e3).toFixed(4)} ${describe(e)}`);
  const recorded = recordedBest(name);
  const recordedTrace = recorded === undefined ? undefined : withIndices(designs[0]!.simplified({ removePostproc: true }), recorded);
  const priors = seedsFromPriors(ctx.workload, designs, 8).map((trace) => show(estimate(trace, 1, false)));
  console.log(
    `| ${name} | ${show(best)} | ${recordedTrace === undefined ? "—" : show(estimate(recordedTrace, 1, false))} | ${isPriorSource(ctx.workload) ? "(their source)" : priors.join("; ") || "none match"} |`,
  );
}
