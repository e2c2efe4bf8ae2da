/**
 * `pnpm bench:cpu-tune`: tunes matmul for the C target with `tuneTIR` — TVM's LLVM design space
 * (MultiLevelTiling SSRSRS with a "global" write cache, ParallelizeVectorizeUnroll, …), the
 * evolutionary search with the learned cost model, the LocalBuilder (C generation, gcc in
 * parallel, cached) and the LocalRunner (each candidate timed in a child process, checked against
 * the unscheduled workload compiled by the C target). The best record is then built in this
 * process and timed back to back with the hand-written d2l schedule and NumPy/OpenBLAS, so the
 * ratios come from one stretch of load. Appends a dated section to docs/benchmarks/cpu-tuning.md (the
 * report's earlier sections stay as they are) and writes this run's docs/benchmarks/cpu-tuning.json.
 *
 *   pnpm bench:cpu-tune [--n 1024] [--trials 96] [--per-iter 32] [--seed 1] [--label "session 9, AMD EPYC Zen 5"] [--json cpu-tuning.json]
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Target, target as targetOf } from "@tessera/codegen";
import { matmulCpu } from "@tessera/corpus/d2l-cpu";
import { type PrimFunc, ops, randomArgs } from "@tessera/ir";
import { type HostModule, build } from "@tessera/runtime";
import { BENCH_VENV_INSTALL, benchPython } from "../../runtime/bench/bench-python.js";
import { CpuBuilder, LocalRunner, argsInfoOf, tuneTIR } from "../src/index.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

async function timeModule(mod: HostModule, args: Float32Array[]): Promise<number> {
  const t = await mod.timeEvaluator({ number: 1, repeat: 5, minRepeatMs: 50 })(...args);
  return t.median;
}

/** Ends the run with one clear line, before any tuning, when the reference (NumPy) cannot be imported. */
function requireNumpy(): void {
  try {
    execFileSync(benchPython(), ["-c", "import numpy"], { stdio: "pipe" });
  } catch {
    console.error(
      `bench:cpu-tune: NumPy, the reference, does not import in ${benchPython()}; make the benchmarks' venv (\`${BENCH_VENV_INSTALL}\`) or set TESSERA_BENCH_PYTHON to a Python that has it`,
    );
    process.exit(2);
  }
}

function numpyMatmulMs(n: number, threads: "default" | "1"): number {
  const code = `import numpy as np, time
n=${n}; a=np.random.rand(n,n).astype(np.float32); b=np.random.rand(n,n).astype(np.float32); c=np.empty((n,n),np.float32)
np.dot(a,b,out=c); s=[]
for _ in range(5):
  t=time.perf_counter(); np.dot(a,b,out=c); np.dot(a,b,out=c); np.dot(a,b,out=c); s.append((time.perf_counter()-t)/3)
s.sort(); print(s[2]*1e3)`;
  const env = threads === "1" ? { ...process.env, OPENBLAS_NUM_THREADS: "1" } : process.env;
  return Number(execFileSync(benchPython(), ["-c", code], { encoding: "utf8", env }).trim());
}

/**
 * The best record measured again as the tuning measured it (its runner's child process and evaluator
 * settings), three times, median: the figure to set beside the in-process one, from the same stretch of load.
 */
async function remeasuredInRunnerMs(func: PrimFunc, scheduled: PrimFunc, target: Target): Promise<number> {
  const built = await new CpuBuilder().buildOne({ func: scheduled, target });
  if (!built.ok) throw new Error(`bench:cpu-tune: the best record does not build again: ${built.error}`);
  const runner = new LocalRunner({ stopSlowerThan: false });
  try {
    const ms: number[] = [];
    for (let round = 0; round < 3; round++) {
      const [r] = await runner.run([{ artifact: built.artifact, argsInfo: argsInfoOf(func) }]);
      if (r === undefined || !r.ok) throw new Error(`bench:cpu-tune: the best record failed in the runner: ${r?.ok === false ? r.error : "no result"}`);
      ms.push(Math.min(...r.runSecs) * 1e3);
    }
    return ms.sort((a, b) => a - b)[1]!;
  } finally {
    await runner.dispose();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: "string", default: "1024" },
      trials: { type: "string", default: "96" },
      "per-iter": { type: "string", default: "32" },
      seed: { type: "string", default: "1" },
      label: { type: "string", default: os.cpus()[0]?.model ?? "this machine" },
      json: { type: "string", default: "cpu-tuning.json" },
    },
  });
  const n = Number(values.n);
  const trials = Number(values.trials);
  const perIter = Number(values["per-iter"]);
  const seed = Number(values.seed);
  requireNumpy();
  const func = ops.matmul(n, n, n).func;
  const flops = 2 * n * n * n;
  const gflops = (ms: number): number => flops / ms / 1e6;
  const loadBefore = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
  const workDir = mkdtempSync(join(os.tmpdir(), "tessera-cpu-tune-"));
  const target = targetOf("llvm");
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await tuneTIR(func, target, {
    workDir,
    maxTrialsGlobal: trials,
    numTrialsPerIter: perIter,
    seed,
    writeCurve: false,
    logger: (level, message) => {
      if (level !== "debug" && /Trial #|finished|rejected/.test(message)) console.log(message);
    },
  });
  const tuneSecs = (performance.now() - t0) / 1000;
  const cpuUsed = process.cpuUsage(cpu0);
  // The main process's CPU (search, cost model, lowering, C generation); gcc and the runner's child are not in it.
  const tuneMainCpuSecs = (cpuUsed.user + cpuUsed.system) / 1e6;
  if (result.bestSchedule === undefined) throw new Error("bench:cpu-tune: no candidate built and ran");
  const failed = result.history.filter((t) => !t.ok);
  const bestTrial = result.history.reduce(
    (b, t) => (t.ok && (b === undefined || t.latencySecs < b.latencySecs) ? t : b),
    undefined as (typeof result.history)[number] | undefined,
  );

  // The finalists back to back, in this process.
  const args = randomArgs(func, 3) as Float32Array[];
  const tuned = await build(result.bestSchedule.func, target);
  const hand = await build(matmulCpu(n).scheduled, target);
  const tunedMs = await timeModule(tuned, args);
  const handMs = await timeModule(hand, args);
  const npDefault = numpyMatmulMs(n, "default");
  const npSingle = numpyMatmulMs(n, "1");
  const tunedAgainMs = await timeModule(tuned, args);
  const inRunnerMs = await remeasuredInRunnerMs(func, result.bestSchedule.func, target);
  const npMs = Math.min(npDefault, npSingle);
  const bestTunedMs = Math.min(tunedMs, tunedAgainMs);
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
  const summary = {
    n,
    trials,
    trialsPerIteration: perIter,
    seed,
    tuningSeconds: tuneSecs,
    tuningMainProcessCpuSeconds: tuneMainCpuSecs,
    failed: failed.length,
    tunedGflopsInTuning: bestTrial !== undefined && bestTrial.ok ? flops / bestTrial.latencySecs / 1e9 : null,
    tunedGflopsRemeasuredInRunner: gflops(inRunnerMs),
    tunedGflops: gflops(bestTunedMs),
    handGflops: gflops(handMs),
    numpyGflops: { allThreads: gflops(npDefault), oneThread: gflops(npSingle) },
    tunedOverNumpy: npMs / bestTunedMs,
    handOverNumpy: npMs / handMs,
    loadAverageBefore: loadBefore,
    loadAverageAfter: load,
  };
  console.log(summary);
  const outDir = join(repoRoot, "docs", "benchmarks");
  const history = result.history.map((t) => ({ trial: t.globalTrial, ms: t.ok ? t.latencySecs * 1e3 : null, ...(t.ok ? {} : { error: t.error }) }));
  writeFileSync(join(outDir, values.json), `${JSON.stringify({ summary, history, bestTrace: result.bestRecord?.trace, bestSource: tuned.source }, null, 2)}\n`);
  const reasons = new Map<string, number>();
  for (const f of failed) {
    const key = (f.error ?? "?").split("\n")[0]!.slice(0, 120);
    reasons.set(key, (reasons.get(key) ?? 0) + 1);
  }
  const day = new Date().toISOString().slice(0, 10);
  const md = [
    "",
    `## ${day}, ${values.label}: \`pnpm bench:cpu-tune --n ${n} --trials ${trials} --per-iter ${perIter} --seed ${seed}\``,
    "",
    "Appended by the benchmark (the method is the report's first section). The best record is built again in",
    "this process and timed back to back with the hand-written schedule and NumPy (the tuned one twice, around",
    `NumPy; the faster counts). NumPy: ${benchPython()}.`,
    "",
    `**Noise:** 2 shared cores; load average ${loadBefore} before tuning and ${load} at the end.`,
    `Tuning took ${tuneSecs.toFixed(0)} s of wall time, ${tuneMainCpuSecs.toFixed(0)} s of CPU in the main process (gcc and the runner's child not counted).`,
    "",
    "| | GFLOPS | vs NumPy (faster of all threads / 1 thread) |",
    "|---|---|---|",
    `| NumPy np.dot (OpenBLAS sgemm), all threads | ${gflops(npDefault).toFixed(1)} | |`,
    `| NumPy np.dot (OpenBLAS sgemm), 1 thread | ${gflops(npSingle).toFixed(1)} | |`,
    `| hand-written d2l schedule (matmulCpu) | ${gflops(handMs).toFixed(1)} | ${(npMs / handMs).toFixed(2)}× |`,
    `| tuned (best of ${trials} trials, ${tuneSecs.toFixed(0)} s of tuning) | ${gflops(bestTunedMs).toFixed(1)} | ${(npMs / bestTunedMs).toFixed(2)}× |`,
    `| the same record in the tuning's runner (its single-sample trial; measured again, median of 3) | ${summary.tunedGflopsInTuning?.toFixed(1) ?? "–"}; ${gflops(inRunnerMs).toFixed(1)} | |`,
    "",
    `${failed.length} of ${result.history.length} trials failed${failed.length === 0 ? "" : ":"}`,
    ...[...reasons].map(([why, count]) => `- ${count}× ${why}`),
    "",
    `The best candidate's C is in ${values.json} (\`bestSource\`).`,
    "",
  ].join("\n");
  // Appended, never rewritten: the report's earlier dated sections are the record of other machines and days.
  appendFileSync(join(outDir, "cpu-tuning.md"), md);
  tuned.dispose();
  hand.dispose();
  console.log(`wrote ${join(outDir, "cpu-tuning.md")}`);
}

await main();
