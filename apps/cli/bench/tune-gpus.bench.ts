/**
 * `pnpm bench:tune --gpus 0,1,…` (also the device bundle's `bench-tune-gpus` entry): tunes one
 * workload with one seed twice, its candidates measured by `tessera worker` processes through the
 * job queue, first on the first GPU alone and then on every GPU listed, one worker each; the
 * speed-up is the ratio of the two wall times. On a GPU the best kernel of each run is compared with
 * torch (cuBLAS SGEMM `A @ B` and eager `relu(A@B)+C`, TF32 off) timed in the same run.
 *
 *   tsx --conditions=@tessera/source apps/cli/bench/tune-gpus.bench.ts --gpus 0,1
 *       [--workload gemm_relu_add_2048] [--trials 256] [--per-iter 32] [--seed 7] [--dry-run]
 *       [--out-dir docs/benchmarks] [--stem tuning-gpus]
 *
 * Needs a redis-server (TESSERA_REDIS_SERVER, e.g. the device bundle's redis-server.sh, or one on
 * the PATH); it starts a private one on loopback. `--dry-run` measures in the simulated runner.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cudaTarget } from "@tessera/codegen";
import { FAILED_RUN_SECS, tuneTIR } from "@tessera/meta-schedule";
import { QueueRunner } from "@tessera/meta-schedule/measure-queue";
import {
  Dispatcher,
  PASSWORD_ENV,
  type RedisServer,
  type WorkerCommand,
  findRedisServer,
  measureDispatch,
  startGpuWorkers,
  startRedisServer,
} from "@tessera/queue";
import { machineInfo, machineLines } from "../../../packages/ir/bench/bench-util.js";
import { type TorchBaseline, torchBaselines } from "../../../packages/meta-schedule/bench/torch-baselines.js";
import { type BenchWorkload, benchWorkload } from "../../../packages/meta-schedule/bench/workloads.js";
import { gpuList } from "../src/commands/worker.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

interface Mode {
  readonly gpus: readonly number[];
  readonly workload: BenchWorkload;
  readonly trials: number;
  readonly perIter: number;
  readonly seed: number;
  readonly dryRun: boolean;
  readonly outDir: string;
  readonly stem: string;
  readonly target: string;
}

interface RunRow {
  readonly gpus: readonly number[];
  readonly wallSeconds: number;
  readonly trials: number;
  readonly failedTrials: number;
  readonly bestMs: number | undefined;
  readonly bestTrial: number | undefined;
  /** Measure jobs each worker did, by GPU. */
  readonly jobsPerGpu: Record<string, number>;
}

function parseMode(): Mode {
  const { values } = parseArgs({
    options: {
      gpus: { type: "string" },
      workload: { type: "string", default: "gemm_relu_add_2048" },
      trials: { type: "string", default: "256" },
      "per-iter": { type: "string", default: "32" },
      seed: { type: "string", default: "7" },
      "dry-run": { type: "boolean", default: false },
      "out-dir": { type: "string", default: join(repoRoot, "docs", "benchmarks") },
      stem: { type: "string" },
      target: { type: "string", default: "nvidia/h200" },
    },
  });
  if (values.gpus === undefined) throw new RangeError("--gpus 0,1,… is required: the GPUs to spread the measurements over");
  const int = (name: string, text: string): number => {
    if (!/^\d+$/.test(text) || Number(text) < 1) throw new RangeError(`--${name} must be a positive integer, got "${text}"`);
    return Number(text);
  };
  const dryRun = values["dry-run"] === true;
  return {
    gpus: gpuList(values.gpus),
    workload: benchWorkload(values.workload!),
    trials: int("trials", values.trials!),
    perIter: int("per-iter", values["per-iter"]!),
    seed: Number(values.seed!),
    dryRun,
    outDir: values["out-dir"]!,
    stem: values.stem ?? (dryRun ? "tuning-gpus-dry-run" : "tuning-gpus"),
    target: values.target!,
  };
}

/** `tessera worker`: the bundle's tessera.mjs beside this entry, else the CLI's sources through tsx. */
function workerCommand(): WorkerCommand {
  const entry = process.argv[1] ?? "";
  if (entry.endsWith(".mjs")) return { file: process.execPath, args: [join(dirname(entry), "tessera.mjs"), "worker"] };
  return { file: process.execPath, args: ["--import", "tsx", "--conditions=@tessera/source", join(repoRoot, "apps/cli/src/main.ts"), "worker"], cwd: repoRoot };
}

async function tuneOn(mode: Mode, gpus: readonly number[], redis: RedisServer, password: string): Promise<RunRow> {
  const label = `${gpus.length} GPU${gpus.length === 1 ? "" : "s"} (${gpus.join(",")})`;
  const base = join(tmpdir(), "tessera-bench-tune-gpus", `${mode.workload.name}-${mode.seed}-${gpus.join("_")}-${Date.now()}`);
  const logDir = join(base, "workers");
  const command = workerCommand();
  const workers = await startGpuWorkers({
    gpus,
    command: { ...command, args: [...command.args, "--redis", `redis://127.0.0.1:${redis.port}`] },
    env: { [PASSWORD_ENV]: password },
    logDir,
  });
  const dispatcher = await Dispatcher.open(redis.url);
  console.log(`${label}: tuning ${mode.workload.name}, seed ${mode.seed}, ${mode.trials} trials (worker logs in ${logDir})`);
  const started = performance.now();
  let lastLine = 0;
  try {
    const result = await tuneTIR(mode.workload.func(), cudaTarget(mode.target), {
      workDir: join(base, "work"),
      maxTrialsGlobal: mode.trials,
      numTrialsPerIter: Math.min(mode.perIter, mode.trials),
      space: "auto",
      strategy: "evolutionary",
      runner: new QueueRunner({ dispatch: measureDispatch(dispatcher), runner: { kind: mode.dryRun ? "simulated" : "local" } }),
      database: "json",
      seed: mode.seed,
      writeCurve: false,
      logSummary: false,
      estimatedTimes: mode.dryRun,
      logger: () => undefined,
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastLine < 10_000 && p.trialsDone !== p.maxTrialsGlobal) return;
        lastLine = now;
        const best = p.trial.totalBestSecs < FAILED_RUN_SECS ? `${(p.trial.totalBestSecs * 1e3).toFixed(4)} ms` : "none yet";
        console.log(`  ${label}: trial ${p.trialsDone}/${p.maxTrialsGlobal}, best ${best} (${((now - started) / 1000).toFixed(1)} s)`);
      },
    });
    const wallSeconds = (performance.now() - started) / 1000;
    const best = Math.min(...result.history.map((t) => t.totalBestSecs), FAILED_RUN_SECS);
    const bestMs = best < FAILED_RUN_SECS ? best * 1e3 : undefined;
    return {
      gpus,
      wallSeconds,
      trials: result.history.length,
      failedTrials: result.history.filter((t) => !t.ok).length,
      bestMs,
      bestTrial: bestMs === undefined ? undefined : result.history.findIndex((t) => t.ok && t.latencySecs === best) + 1,
      jobsPerGpu: Object.fromEntries(gpus.map((g) => [String(g), (readFileSync(workers.logs.get(g)!, "utf8").match(/: done in /g) ?? []).length])),
    };
  } finally {
    await dispatcher.close();
    await workers.stop();
  }
}

function fmt(x: number | undefined, digits = 4): string {
  return x === undefined ? "–" : x.toFixed(digits);
}

function report(mode: Mode, rows: readonly RunRow[], torch: { baseline: TorchBaseline; device: string } | { reason: string }): string {
  const one = rows[0]!;
  const all = rows.at(-1)!;
  const cublas = "baseline" in torch ? (torch.baseline.gemmOnly ?? torch.baseline.op).medianMs : undefined;
  const eager = "baseline" in torch && torch.baseline.gemmOnly !== undefined ? torch.baseline.op.medianMs : undefined;
  const est = mode.dryRun ? " (estimated)" : "";
  const lines = [
    `# Tuning on ${mode.gpus.length} GPU${mode.gpus.length === 1 ? "" : "s"} against one${mode.dryRun ? " (dry run: simulated runner)" : ""}`,
    "",
    `Generated by \`pnpm bench:tune --gpus ${mode.gpus.join(",")}${mode.dryRun ? " --dry-run" : ""}\` (apps/cli/bench/tune-gpus.bench.ts): ${mode.workload.name}, the automatic space, evolutionary search, seed ${mode.seed}, ${mode.trials} trials, ${mode.perIter} per round; candidates built by this process and measured by \`tessera worker\` processes, one per GPU, through the job queue (a private redis-server).`,
    "",
    ...machineLines(machineInfo()),
    `- GPU: ${"device" in torch ? torch.device : mode.dryRun ? "none (simulated runner)" : `torch unavailable: ${torch.reason}`}`,
    "",
    `| GPUs | wall (s) | best (ms)${est} | found at trial | failed trials | measure jobs per GPU | × cuBLAS A@B | × torch relu(A@B)+C |`,
    "|---|---:|---:|---:|---:|---|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.gpus.join(",")} | ${r.wallSeconds.toFixed(1)} | ${fmt(r.bestMs)} | ${r.bestTrial ?? "–"} | ${r.failedTrials} | ${Object.entries(r.jobsPerGpu)
          .map(([g, n]) => `${g}: ${n}`)
          .join(", ")} | ${fmt(r.bestMs === undefined || cublas === undefined ? undefined : r.bestMs / cublas, 3)} | ${fmt(
          r.bestMs === undefined || eager === undefined ? undefined : r.bestMs / eager,
          3,
        )} |`,
    ),
    "",
    rows.length > 1
      ? `Speed-up of the wall time, ${all.gpus.length} GPUs over 1: **${(one.wallSeconds / all.wallSeconds).toFixed(2)}×**.`
      : "One GPU listed: nothing to compare.",
    cublas === undefined
      ? ""
      : `cuBLAS SGEMM (torch A@B, TF32 off): ${cublas.toFixed(4)} ms${eager === undefined ? "" : `; torch relu(A@B)+C: ${eager.toFixed(4)} ms`}.`,
    "",
  ];
  return lines.join("\n");
}

async function main(): Promise<void> {
  const mode = parseMode();
  const binary = findRedisServer();
  if (binary === undefined) throw new Error("no redis-server: set TESSERA_REDIS_SERVER (e.g. .device-bundle/redis-server.sh) or put one on the PATH");
  const password = randomBytes(18).toString("base64url");
  const redis = await startRedisServer(binary, { password });
  const rows: RunRow[] = [];
  try {
    const configs = mode.gpus.length === 1 ? [mode.gpus] : [mode.gpus.slice(0, 1), mode.gpus];
    for (const gpus of configs) rows.push(await tuneOn(mode, gpus, redis, password));
  } finally {
    await redis.stop();
  }
  let torch: { baseline: TorchBaseline; device: string } | { reason: string } = { reason: "dry run" };
  if (!mode.dryRun) {
    const timed = await torchBaselines([mode.workload.torch]);
    torch = timed.ok ? { baseline: timed.baselines[0]!, device: timed.env.device } : { reason: timed.reason };
  }
  const md = report(mode, rows, torch);
  mkdirSync(mode.outDir, { recursive: true });
  writeFileSync(join(mode.outDir, `${mode.stem}.md`), md);
  writeFileSync(join(mode.outDir, `${mode.stem}.json`), `${JSON.stringify({ mode: { ...mode, workload: mode.workload.name }, rows, torch }, null, 1)}\n`);
  console.log(md);
  console.log(`wrote ${join(mode.outDir, `${mode.stem}.{md,json}`)}`);
}

main().catch((err: unknown) => {
  console.error(`bench:tune --gpus: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
