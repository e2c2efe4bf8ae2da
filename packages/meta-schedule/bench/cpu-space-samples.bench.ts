/**
 * Random samples of the CPU design space with the register tiles (the default) and without them (TVM's
 * sampling of every tile level), the hand-written d2l matmul and NumPy (OpenBLAS, one thread), timed by
 * CPU time (this process's; NumPy's with time.process_time in its own): one thread and no parallel
 * regions, so the figures hold on a loaded machine (a sample's CPU time is its run time without the
 * waits for a core). Prints GFLOP per CPU-second, best and median; NumPy before and after the samples.
 *
 *   OMP_NUM_THREADS=1 pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/cpu-space-samples.bench.ts [n=512] [samples=12] [--tiles-only]
 */
import { target as targetOf } from "@tessera/codegen";
import { matmulCpu } from "@tessera/corpus/d2l-cpu";
import { type PrimFunc, ops, randomArgs } from "@tessera/ir";
import { execFileSync } from "node:child_process";
import { buildHost } from "@tessera/runtime";
import { benchPython } from "../../runtime/bench/bench-python.js";
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

/** NumPy's np.dot on one OpenBLAS thread, GFLOP per CPU-second of its process (the best of 3 batches of ≥ 0.2 s). */
function numpyGflopsPerCpuSecond(): number {
  const code = `import numpy as np, time
n=${n}; a=np.random.rand(n,n).astype(np.float32); b=np.random.rand(n,n).astype(np.float32); c=np.empty((n,n),np.float32)
np.dot(a,b,out=c); best=0
for _ in range(3):
  t=time.process_time(); k=0
  while time.process_time()-t<0.2 or k<2: np.dot(a,b,out=c); k+=1
  best=max(best,2*n**3*k/(time.process_time()-t)/1e9)
print(best)`;
  const env = { ...process.env, OPENBLAS_NUM_THREADS: "1", OMP_NUM_THREADS: "1" };
  return Number(execFileSync(benchPython(), ["-c", code], { encoding: "utf8", env }).trim());
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
const numpyBefore = numpyGflopsPerCpuSecond();
const hand = await gflopsPerCpuSecond(matmulCpu(n, n, n, undefined, { parallel: false }).scheduled);
const withTiles = await sampleSpace(true);
const withoutTiles = process.argv[4] === "--tiles-only" ? [] : await sampleSpace(false);
const numpyAfter = numpyGflopsPerCpuSecond();
console.log(`matmul ${n}³, GFLOP per CPU-second (one thread), ${samples} random samples per space`);
console.log(`NumPy np.dot, OpenBLAS 1 thread: ${numpyBefore.toFixed(1)} before, ${numpyAfter.toFixed(1)} after`);
console.log(`hand-written d2l schedule: ${hand.toFixed(1)}`);
console.log(`register tiles (default): ${summary(withTiles)}`);
console.log(`TVM's sampling: ${summary(withoutTiles)}`);
