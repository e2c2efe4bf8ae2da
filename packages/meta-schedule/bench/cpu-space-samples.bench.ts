/**
 * Random samples of the CPU design space with the register tiles (the default) and without them (TVM's
 * sampling of every tile level), and the hand-written d2l matmul, timed by the CPU time of this process:
 * one OpenMP thread and no parallel regions, so the figures hold on a loaded machine (a sample's CPU
 * time is its run time without the waits for a core). Prints GFLOP per CPU-second, best and median.
 *
 *   OMP_NUM_THREADS=1 pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/cpu-space-samples.bench.ts [n=512] [samples=12]
 */
import { target as targetOf } from "@tessera/codegen";
import { matmulCpu } from "@tessera/corpus/d2l-cpu";
import { type PrimFunc, ops, randomArgs } from "@tessera/ir";
import { buildHost } from "@tessera/runtime";
import { multiLevelTilingCpu } from "../src/rules/multi-level-tiling-cpu.js";
import { defaultCpuMutators, defaultCpuPostprocs, defaultCpuRules } from "../src/space/cpu-defaults.js";
import { PostOrderApply } from "../src/space/post-order-apply.js";
import { replayWithPostprocs } from "../src/space/replay.js";
import { tuneContext } from "../src/tune-context.js";
import { workloadOf } from "../src/workload.js";

const n = Number(process.argv[2] ?? 512);
const samples = Number(process.argv[3] ?? 12);
const func = ops.matmul(n, n, n).func;
const target = targetOf("c");
const args = randomArgs(func, 1) as Float32Array[];

async function gflopsPerCpuSecond(f: PrimFunc): Promise<number> {
  const mod = await buildHost(f, target);
  try {
    mod(...args);
    const before = process.cpuUsage();
    const start = performance.now();
    let calls = 0;
    while (performance.now() - start < 200 || calls < 2) {
      mod(...args);
      calls++;
    }
    const used = process.cpuUsage(before);
    return (2 * n ** 3) / ((used.user + used.system) / 1e6 / calls) / 1e9;
  } finally {
    mod.dispose();
  }
}

async function sampleSpace(registerTiles: boolean): Promise<number[]> {
  const rules = defaultCpuRules().map((r) => (r.name === "multiLevelTiling" && !registerTiles ? multiLevelTilingCpu() : r));
  const space = new PostOrderApply({ rules, postprocs: defaultCpuPostprocs({ payoff: () => false }), mutators: defaultCpuMutators() });
  const ctx = tuneContext(workloadOf(func), target, { seed: 3, numThreads: 1 });
  space.initialize(ctx);
  const spaces = space.generateDesignSpace(ctx);
  const figures: number[] = [];
  for (let k = 0; k < samples; k++) {
    const sample = replayWithPostprocs(ctx, spaces[k % spaces.length]!.trace, space.postprocs, { freshDecisions: true, seed: 1000 + k });
    if (sample.ok) figures.push(await gflopsPerCpuSecond(sample.sch.func));
  }
  return figures.sort((a, b) => b - a);
}

const summary = (xs: readonly number[]): string =>
  `best ${xs[0]?.toFixed(1)}, median ${xs[Math.floor(xs.length / 2)]?.toFixed(1)} (${xs.map((x) => x.toFixed(1)).join(" ")})`;
const hand = await gflopsPerCpuSecond(matmulCpu(n, n, n, undefined, { parallel: false }).scheduled);
const withTiles = await sampleSpace(true);
const withoutTiles = await sampleSpace(false);
console.log(`matmul ${n}³, GFLOP per CPU-second (one thread), ${samples} random samples per space`);
console.log(`hand-written d2l schedule: ${hand.toFixed(1)}`);
console.log(`register tiles (default): ${summary(withTiles)}`);
console.log(`TVM's sampling: ${summary(withoutTiles)}`);
