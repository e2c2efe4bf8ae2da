/**
 * The fraction of valid samples of the default CUDA space for gemm+ReLU+add at 2048³, or another
 * workload of `pnpm bench:tune` (fresh decisions, seeds 1..N; lowering only), with the rejection
 * reasons tallied.
 * Run: node --conditions=@tessera/source --import tsx packages/meta-schedule/bench/space-gpu-valid-fraction.ts [N] [--tvm] [--workload NAME] [--target NAME] [--rank K]
 * (`--tvm`: TVM's tiling, "SSSRRSRS" with perfect tiles and no extra knobs, for comparison).
 * `--target NAME` (default nvidia/h100). `--rank K` also estimates every valid sample with the analytic latency model (the hybrid cost
 * model's prior) and lists the K it ranks best: grid, block, shared bytes, operand slices.
 */
import { cudaTarget } from "@tessera/codegen";
import { type PrimFunc, printTVMScript } from "@tessera/ir";
import { defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";
import { type LatencyEstimate, estimateLatency } from "../src/latency-model/index.js";
import { loweredModuleFor } from "../src/postproc/verify-gpu-code.js";
import { TVM_CUDA_TILING } from "../src/rules/multi-level-tiling/index.js";
import { benchWorkload } from "./workloads.js";

const samples = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 200);
const tvm = process.argv.includes("--tvm");
const workloadAt = process.argv.indexOf("--workload");
const rankAt = process.argv.indexOf("--rank");
const rank = rankAt >= 0 ? Number(process.argv[rankAt + 1]) : 0;
const ranked: { seed: number; ms: number; what: string }[] = [];
const workload = benchWorkload(workloadAt >= 0 ? (process.argv[workloadAt + 1] ?? "") : "gemm_relu_add_2048");
const targetAt = process.argv.indexOf("--target");
const t = cudaTarget(targetAt >= 0 ? (process.argv[targetAt + 1] ?? "") : "nvidia/h100", {}, "space-gpu-valid-fraction");
const ctx = tuneContext(workloadOf(workload.func()), t, { seed: 1 });
const space = defaultCudaSpaceGenerator(t, tvm ? { tiling: TVM_CUDA_TILING } : {});
space.initialize(ctx);
const [design] = space.generateDesignSpace(ctx);
const reasons = new Map<string, number>();
let valid = 0;
const started = performance.now();
for (let seed = 1; seed <= samples; seed++) {
  const out = replayWithPostprocs(ctx, design!.trace, space.postprocs, { seed, freshDecisions: true });
  if (out.ok) {
    valid++;
    const module = rank > 0 ? loweredModuleFor(out.sch.func) : undefined;
    if (module !== undefined) {
      const estimate = estimateLatency(module, t);
      ranked.push({ seed, ms: estimate.seconds * 1e3, what: describe(estimate, out.sch.func) });
    }
  } else {
    const reason = out.reason.replace(/\d+/g, "#");
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
}
const ms = (performance.now() - started) / samples;
console.log(
  `${workload.name} on ${t.name}${tvm ? " (TVM's tiling)" : ""}: ${valid}/${samples} valid (${((100 * valid) / samples).toFixed(1)}%), ${ms.toFixed(0)} ms per sample`,
);
for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  ${n}× ${reason}`);
if (rank > 0) {
  console.log(`best ${rank} of ${ranked.length} by the analytic latency model:`);
  for (const r of ranked.sort((a, b) => a.ms - b.ms).slice(0, rank)) console.log(`  seed ${r.seed}: ${r.ms.toFixed(4)} ms  ${r.what}`);
}

function describe(estimate: LatencyEstimate, func: PrimFunc): string {
  const slices = /_shared_local/.test(printTVMScript(func)) ? "operand slices" : "no slices";
  const kernels = estimate.kernels.map((k) => `${k.profile.blocks} blocks × ${k.profile.threadsPerBlock} threads, ${k.profile.sharedBytes} B shared`);
  return `${kernels.join("; ")}, ${slices}`;
}
