/**
 * `pnpm bench:queue` (bundled as `queue-bench`): batch grading through the job queue with 1
 * worker process against several sharing one GPU. Starts a private redis-server, writes N
 * submissions (the assignment's solution and starter, alternating), and for each worker count
 * starts that many `tessera-grade worker` processes, grades the batch through the queue into a
 * fresh OUT, stops them, and records the wall time of the batch (workers already started). The
 * workers of one GPU take turns on it (a lock in Redis, see cli/worker-command.ts): what runs side
 * by side is the rest of each grading (sandboxed student code, replays, checks), so the timings
 * and scores stay those of a GPU used by one kernel at a time. Writes queue-bench.{json,md} into
 * --out-dir, with whether every submission got the same grade in every run.
 *
 *   pnpm bench:queue [--submissions 50] [--workers 1,2,4] [--gpus 0,1] [--concurrency 1] [--simulator]
 *                    [--rounds N] [--redis-server PATH] [--out-dir DIR] [--keep]
 *   .device-bundle/run.sh queue-bench --redis-server .device-bundle/redis-server.sh --out-dir "$OUT"
 *
 * `--simulator`: workers without a GPU (simulator numerics, no timing), to try it on any machine.
 * `--gpus 0,1`: worker k runs with `--gpu gpus[k % n]`, one worker per GPU on a multi-GPU host;
 * `--gpus 0 --workers 1,2` on a one-GPU machine is the "two workers on one GPU" check.
 * `pnpm bundle:redis` packs a redis-server for GPU machines that have none.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, cpus, hostname, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startRedisServer } from "@tessera/queue/testing";
import { DEFAULT_ASSIGNMENT, assignmentBinding } from "../src/assignment.js";
import { gradedFiles } from "../src/batch/grade-one.js";
import { runBatch } from "../src/batch/run-batch.js";
import { loadManifest } from "../src/manifest/index.js";
import { queueGrader } from "../src/queue/queue-grader.js";

const USAGE =
  "usage: queue-bench [--submissions N] [--workers 1,2,4] [--gpus 0,1] [--concurrency K] [--simulator] [--rounds N] [--redis-server PATH] [--out-dir DIR] [--keep]";

const { values } = parseArgs({
  options: {
    submissions: { type: "string", default: "50" },
    workers: { type: "string", default: "1,2,4" },
    gpus: { type: "string" },
    concurrency: { type: "string", default: "1" },
    simulator: { type: "boolean", default: false },
    rounds: { type: "string" },
    "redis-server": { type: "string" },
    "out-dir": { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const count = Number(values.submissions);
const workerCounts = values.workers.split(",").map(Number);
const concurrency = Number(values.concurrency);
const rounds = values.rounds === undefined ? undefined : Number(values.rounds);
/** GPU ordinals the workers are spread over, round-robin (`--gpu N` each); none: the default device. */
const gpus = values.gpus === undefined ? [] : values.gpus.split(",").map(Number);
if (values.simulator && gpus.length > 0) {
  console.error("queue-bench: --gpus and --simulator exclude each other (simulator workers use no GPU)");
  process.exit(2);
}
if (
  gpus.some((g) => !Number.isInteger(g) || g < 0) ||
  !Number.isInteger(count) ||
  count < 1 ||
  workerCounts.some((w) => !Number.isInteger(w) || w < 1 || w > 64) ||
  !Number.isInteger(concurrency) ||
  concurrency < 1 ||
  (rounds !== undefined && (!Number.isInteger(rounds) || rounds < 1))
) {
  console.error(USAGE);
  process.exit(2);
}
const redisBinary = values["redis-server"] ?? process.env.TESSERA_REDIS_SERVER;
const cwd = process.env.INIT_CWD ?? process.cwd();
const outDir = resolve(cwd, values["out-dir"] ?? "docs/benchmarks");

const binding = assignmentBinding(DEFAULT_ASSIGNMENT);
const manifest = loadManifest(binding.manifestPath);
const work = await mkdtemp(join(tmpdir(), "tessera-queue-bench-"));
const dir = join(work, "submissions");
const kinds = [
  { kind: "solution", from: join(binding.root, "solution") },
  { kind: "starter", from: binding.root },
] as const;
for (let k = 0; k < count; k++) {
  const { kind, from } = kinds[k % kinds.length]!;
  const to = join(dir, `${String(k).padStart(3, "0")}-${kind}`);
  await mkdir(to, { recursive: true });
  for (const file of gradedFiles(manifest)) if (existsSync(join(from, file))) await copyFile(join(from, file), join(to, file));
}
console.log(`${count} submissions (solution and starter, alternating) in ${dir}`);

/** `tessera-grade worker`: the bundle's grade.mjs beside this one, or the sources through tsx. */
function workerCommand(): { args: string[]; cwd: string } {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith(".ts")) {
    const app = resolve(dirname(here), "..");
    return { args: ["--import", "tsx", "--conditions=@tessera/source", join(app, "src", "main.ts"), "worker"], cwd: app };
  }
  return { args: [join(dirname(here), "grade.mjs"), "worker"], cwd: dirname(here) };
}

interface Worker {
  readonly child: ChildProcess;
  readonly ready: Promise<string>;
  readonly exited: Promise<number | string>;
  output: string;
}

function startWorker(url: string, name: string, gpu: number | undefined, env: NodeJS.ProcessEnv): Worker {
  const { args, cwd: at } = workerCommand();
  const device = values.simulator ? ["--no-gpu"] : gpu === undefined ? [] : ["--gpu", String(gpu)];
  const child = spawn(process.execPath, [...args, "--redis", url, "--name", name, "--concurrency", String(concurrency), ...device], {
    cwd: at,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const worker: Worker = {
    child,
    output: "",
    exited: new Promise((r) => child.once("exit", (code, signal) => r(code ?? signal ?? "?"))),
    ready: new Promise((resolveReady, reject) => {
      child.stdout?.on("data", (d: Buffer) => {
        worker.output += d.toString();
        const line = /\] ready: .*? on (.*)$/m.exec(worker.output);
        if (line !== null) resolveReady(line[1]!);
      });
      child.stderr?.on("data", (d: Buffer) => (worker.output += d.toString()));
      child.once("exit", (how) => reject(new Error(`worker ${name} exited (${how}) before it was ready:\n${worker.output}`)));
    }),
  };
  return worker;
}

interface Run {
  readonly workers: number;
  readonly wallSeconds: number;
  readonly submissionsPerMinute: number;
  readonly graded: number;
  readonly errors: number;
  /** name → "score/max" or "error: …" */
  readonly grades: Record<string, string>;
  /** What the workers said they run on. */
  readonly device: string;
  /** The `--gpu` ordinal of each worker (empty: the default device). */
  readonly workerGpus: readonly number[];
}

let redis: Awaited<ReturnType<typeof startRedisServer>>;
try {
  redis = await startRedisServer(redisBinary);
} catch (err) {
  // No Redis, no benchmark: say so plainly and leave no scratch folder behind.
  await rm(work, { recursive: true, force: true });
  console.error(
    `queue-bench: ${err instanceof Error ? err.message : String(err)} (give a redis-server with --redis-server PATH or TESSERA_REDIS_SERVER; pnpm bundle:redis packs one)`,
  );
  process.exit(1);
}
console.log(`redis-server at ${redis.url}`);
const runs: Run[] = [];
try {
  for (const [index, n] of workerCounts.entries()) {
    const prefix = `bench${index}`;
    const env = { TESSERA_QUEUE_PREFIX: prefix };
    const workerGpus = gpus.length === 0 ? [] : Array.from({ length: n }, (_, k) => gpus[k % gpus.length]!);
    const workers = Array.from({ length: n }, (_, k) => startWorker(redis.url, `w${k + 1}-of-${n}`, workerGpus[k], env));
    const readiness = await Promise.all(workers.map((w) => w.ready));
    const out = join(work, `out-${n}-workers`);
    const grader = await queueGrader(
      redis.url,
      { binding, manifest, noGpu: values.simulator, ...(rounds === undefined ? {} : { numerics: { rounds } }) },
      { prefix },
    );
    const started = performance.now();
    let result;
    try {
      result = await runBatch({ dir, out, binding, manifest, grader, force: true });
    } finally {
      await grader.dispose();
    }
    const wallSeconds = (performance.now() - started) / 1000;
    for (const w of workers) w.child.kill("SIGTERM");
    const exits = await Promise.all(workers.map((w) => w.exited));
    if (exits.some((e) => e !== 0)) console.warn(`workers exited with ${exits.join(", ")}`);
    const grades = Object.fromEntries(result.outcomes.map((o) => [o.name, o.status === "graded" ? `${o.score}/${o.maxScore}` : `error: ${o.error}`]));
    const graded = result.outcomes.filter((o) => o.status === "graded").length;
    const run: Run = {
      workers: n,
      wallSeconds,
      submissionsPerMinute: (60 * count) / wallSeconds,
      graded,
      errors: count - graded,
      grades,
      device: readiness[0] ?? "",
      workerGpus,
    };
    runs.push(run);
    console.log(
      `${n} worker${n === 1 ? "" : "s"}: ${wallSeconds.toFixed(1)} s, ${run.submissionsPerMinute.toFixed(2)} submissions/min (${graded} graded, ${run.errors} errors)`,
    );
    // After every run, so a batch cut short by a time limit still leaves the runs it finished.
    await writeReport(runs);
  }
} finally {
  await redis.stop();
}
if (values.keep) console.log(`kept ${work}`);
else await rm(work, { recursive: true, force: true });

/** Writes queue-bench.{json,md} for the runs so far and prints the table. */
async function writeReport(runs: readonly Run[]): Promise<void> {
  const base = runs[0]!;
  const differing = (run: Run): string[] => Object.keys(base.grades).filter((name) => run.grades[name] !== base.grades[name]);
  const allEqual = runs.every((r) => differing(r).length === 0);
  const report = {
    date: new Date().toISOString(),
    host: hostname(),
    cpus: `${availableParallelism()} × ${cpus()[0]?.model ?? "?"}`,
    node: process.version,
    device: base.device,
    simulator: values.simulator,
    numericsRounds: rounds ?? "manifest",
    submissions: count,
    concurrencyPerWorker: concurrency,
    allGradesEqual: allEqual,
    runs: runs.map((r) => ({ ...r, speedup: base.wallSeconds / r.wallSeconds, differingFromFirst: differing(r) })),
  };
  const rows = report.runs.map(
    (r) =>
      `| ${count} | ${r.workers} | ${r.wallSeconds.toFixed(1)} | ${r.submissionsPerMinute.toFixed(2)} | ${r.speedup.toFixed(2)}× | ${r.graded} / ${r.errors} | ${r.differingFromFirst.length === 0 ? "yes" : `no: ${r.differingFromFirst.join(", ")}`} |`,
  );
  const md = [
    "# Batch grading through the job queue: worker processes sharing one GPU",
    "",
    `\`pnpm bench:queue --submissions ${count} --workers ${workerCounts.join(",")}${values.simulator ? " --simulator" : ""}${rounds === undefined ? "" : ` --rounds ${rounds}`}\` on ${report.host} (${report.cpus}; Node ${report.node}), ${report.date}.`,
    `Workers: ${report.device}. Each worker grades ${concurrency} submission${concurrency === 1 ? "" : "s"} at a time; the workers of one GPU take turns on it (one kernel at a time), the rest of each grading runs side by side.`,
    "Wall time is the batch's, from the first job dispatched to the last result stored (the workers were started before).",
    "",
    ...(gpus.length === 0
      ? []
      : [
          `Workers spread over GPUs ${gpus.join(", ")} round-robin (\`--gpu N\` each): ${report.runs.map((r) => `${r.workers} → [${r.workerGpus.join(", ")}]`).join("; ")}.`,
          "",
        ]),
    "| Submissions | Workers | Wall (s) | Submissions/min | Speed-up | Graded / errors | Same grades as the first run |",
    "|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
    "",
    `All grades equal across runs: ${allEqual ? "yes" : "no"}.`,
    "",
  ].join("\n");
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, "queue-bench.json"), JSON.stringify(report, null, 2) + "\n");
  await writeFile(join(outDir, "queue-bench.md"), md);
  console.log(md);
  console.log(`written: ${join(outDir, "queue-bench.md")}, ${join(outDir, "queue-bench.json")}`);
}
