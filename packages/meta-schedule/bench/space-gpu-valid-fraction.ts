/**
 * The fraction of valid samples of the default CUDA space for gemm+ReLU+add at 2048³, or another
 * workload of `pnpm bench:tune` (fresh decisions, seeds 1..N; lowering only), with the rejection
 * reasons tallied.
 * Run: node --conditions=@tessera/source --import tsx packages/meta-schedule/bench/space-gpu-valid-fraction.ts [N] [--tvm] [--workload NAME]
 * (`--tvm`: TVM's tiling, "SSSRRSRS" with perfect tiles and no extra knobs, for comparison).
 */
import { target } from "@tessera/codegen";
import { defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";
import { TVM_CUDA_TILING } from "../src/rules/multi-level-tiling/index.js";
import { benchWorkload } from "./workloads.js";

const samples = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 200);
const tvm = process.argv.includes("--tvm");
const workloadAt = process.argv.indexOf("--workload");
const workload = benchWorkload(workloadAt >= 0 ? (process.argv[workloadAt + 1] ?? "") : "gemm_relu_add_2048");
const t = target("nvidia/h100");
const ctx = tuneContext(workloadOf(workload.func()), t, { seed: 1 });
const space = defaultCudaSpaceGenerator(t, tvm ? { tiling: TVM_CUDA_TILING } : {});
space.initialize(ctx);
const [design] = space.generateDesignSpace(ctx);
const reasons = new Map<string, number>();
let valid = 0;
const started = performance.now();
for (let seed = 1; seed <= samples; seed++) {
  const out = replayWithPostprocs(ctx, design!.trace, space.postprocs, { seed, freshDecisions: true });
  if (out.ok) valid++;
  else {
    const reason = out.reason.replace(/\d+/g, "#");
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
  }
}
const ms = (performance.now() - started) / samples;
console.log(
  `${workload.name} on ${t.name}${tvm ? " (TVM's tiling)" : ""}: ${valid}/${samples} valid (${((100 * valid) / samples).toFixed(1)}%), ${ms.toFixed(0)} ms per sample`,
);
for (const [reason, n] of [...reasons].sort((a, b) => b[1] - a[1])) console.log(`  ${n}× ${reason}`);
