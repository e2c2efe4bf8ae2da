/**
 * `tsx --conditions=@tessera/source packages/meta-schedule/bench/replay-heap.bench.ts [YOUNG_MB] [REQUESTS]`
 *
 * A replay worker's CPU with V8's default young generation against `YOUNG_MB` (default 192), side
 * by side in one process: two worker threads replay the same recorded requests (replay-phases.bench.ts
 * records them; the first REQUESTS, default 400) in chunks of 20 taking turns, one thread busy at a
 * time, so that the process's CPU around a chunk (GC helper threads included) is that worker's. The
 * second of two passes is timed.
 */
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { typeScriptThreadBootstrap } from "../src/isolation/entry-point.js";
const USAGE = "usage: replay-heap.bench.ts [YOUNG_MB] [REQUESTS]";
/** Recorded by replay-phases.bench.ts (run it once first). */
const REQUESTS_FILE = join(tmpdir(), "replay-requests-p256-s1.json");

function fail(why: string): never {
  console.error(`replay-heap: ${why}\n${USAGE}`);
  process.exit(2);
}

const young = Number(process.argv[2] ?? 192);
const count = Number(process.argv[3] ?? 400);
if (!(Number.isInteger(young) && young > 0)) fail(`YOUNG_MB must be a positive integer, got ${JSON.stringify(process.argv[2])}`);
if (!(Number.isInteger(count) && count > 0)) fail(`REQUESTS must be a positive integer, got ${JSON.stringify(process.argv[3])}`);
if (!existsSync(REQUESTS_FILE)) fail(`no recorded requests at ${REQUESTS_FILE}: run replay-phases.bench.ts once first`);
const reqs = JSON.parse(readFileSync(REQUESTS_FILE, "utf8")).slice(0, count);
function start(limits: object | undefined): Promise<Worker> {
  const boot = typeScriptThreadBootstrap();
  const w = new Worker(boot.url, {
    execArgv: boot.execArgv,
    workerData: { entry: new URL("./replay-heap-worker.ts", import.meta.url).href },
    ...(limits ? { resourceLimits: limits } : {}),
  });
  return new Promise((res) => w.once("message", () => res(w)));
}
const run = (w: Worker, part: unknown[]) =>
  new Promise<number>((res) => {
    w.once("message", res);
    w.postMessage(part);
  });
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const a = await start(undefined);
const b = await start({ maxYoungGenerationSizeMb: young });
const spent = [0, 0];
const chunk = 20;
for (let pass = 0; pass < 2; pass++)
  for (let from = 0; from < reqs.length; from += chunk) {
    const part = reqs.slice(from, from + chunk);
    const order = (from / chunk) % 2 === 0 ? [0, 1] : [1, 0];
    for (const k of order) {
      const c = cpu();
      const okA = await run(k === 0 ? a : b, part);
      if (pass > 0) spent[k]! += cpu() - c;
      void okA;
    }
  }
console.log({
  young,
  defaultMs: (spent[0]! / reqs.length).toFixed(2),
  youngMs: (spent[1]! / reqs.length).toFixed(2),
  ratio: (spent[1]! / spent[0]!).toFixed(3),
});
await a.terminate();
await b.terminate();
