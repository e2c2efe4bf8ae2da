/**
 * Lowering benchmark (`pnpm bench:lower` from the repo root): how long `lower(sch, "nvidia/h100")`
 * plus `codegenCuda` take for the 2048³ gemm+ReLU+add schedules (naive, manual, fast) and the
 * schedule corpus, warm (V8 has optimised the compiler first). Prints a table, then the time of
 * every pass for the slowest schedule, and writes docs/benchmarks/lowering-time.{json,md}.
 *
 *   tsx --conditions=@tessera/source packages/codegen/bench/lower.bench.ts [--runs N]
 *
 * Each run lowers a fresh schedule (building it is not timed). A timed unit test would be flaky on
 * a shared machine; this reports, and the load average says how far to trust it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { LOWERING_PASSES, codegenCuda, lower, splitHostDevice, target, verifyGpuCode } from "../src/index.js";

const TARGET = target("nvidia/h100");
/** Runs before timing, so that V8 has compiled the lowering code: cold runs are several times slower. */
const WARMUP_RUNS = 15;
/** The target for one GEMM candidate. */
const GOAL_MS = 10;

interface Workload {
  readonly name: string;
  readonly build: () => Schedule;
}

interface Row {
  readonly workload: string;
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
}

interface PassRow {
  readonly pass: string;
  readonly medianMs: number;
  readonly minMs: number;
}

function workloads(): Workload[] {
  return [
    { name: "gemm_relu_add naive 2048", build: () => naiveSchedule(2048) },
    { name: "gemm_relu_add manual 2048", build: () => manualSchedule(2048) },
    { name: "gemm_relu_add fast 2048", build: () => fastSchedule(2048) },
    ...scheduleCorpus().map((e) => ({ name: `corpus ${e.name}`, build: e.build })),
  ];
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

function timeMs(f: () => void): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

function measure(w: Workload, runs: number): Row {
  const schedules = Array.from({ length: WARMUP_RUNS + runs }, () => w.build());
  const times = schedules.map((sch) => timeMs(() => codegenCuda(lower(sch, TARGET)))).slice(WARMUP_RUNS);
  return { workload: w.name, medianMs: median(times), minMs: Math.min(...times), runs };
}

/** The time of each step of `lower`, then of code generation, for one schedule. */
function passTimes(w: Workload, runs: number): PassRow[] {
  const samples = new Map<string, number[]>();
  const note = (step: string, ms: number): void => {
    const list = samples.get(step) ?? [];
    list.push(ms);
    samples.set(step, list);
  };
  for (let i = 0; i < WARMUP_RUNS + runs; i++) {
    const timed = i >= WARMUP_RUNS;
    const sch = w.build();
    let func: PrimFunc = sch.func;
    LOWERING_PASSES.forEach((pass, index) => {
      const ms = timeMs(() => {
        func = pass.run(func, { target: TARGET });
      });
      if (timed) note(`${index + 1}. ${pass.name}`, ms);
    });
    const lowered = func;
    let kernels: ReturnType<typeof splitHostDevice>["kernels"] = [];
    const splitMs = timeMs(() => {
      kernels = splitHostDevice(lowered).kernels;
    });
    const verifyMs = timeMs(() => {
      for (const k of kernels) verifyGpuCode(k, TARGET);
    });
    const module = lower(sch, TARGET);
    const codegenMs = timeMs(() => codegenCuda(module));
    if (timed) {
      note("splitHostDevice", splitMs);
      note("verifyGpuCode", verifyMs);
      note("codegenCuda", codegenMs);
    }
  }
  return [...samples].map(([pass, ms]) => ({ pass, medianMs: median(ms), minMs: Math.min(...ms) }));
}

function workloadTable(rows: readonly Row[]): string {
  const lines = rows.map((r) => `| ${r.workload} | ${r.medianMs.toFixed(2)} | ${r.minMs.toFixed(2)} | ${r.runs} |`);
  return ["| schedule | median (ms) | min (ms) | runs |", "|---|---:|---:|---:|", ...lines].join("\n");
}

function passTable(rows: readonly PassRow[]): string {
  const lines = rows.map((r) => `| ${r.pass} | ${r.medianMs.toFixed(2)} | ${r.minMs.toFixed(2)} |`);
  return ["| step | median (ms) | min (ms) |", "|---|---:|---:|", ...lines].join("\n");
}

function runsArgument(): number {
  const i = process.argv.indexOf("--runs");
  const n = i < 0 ? 20 : Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--runs needs a positive integer, got ${process.argv[i + 1]}`);
  return n;
}

function main(): void {
  const runs = runsArgument();
  const machine = {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.cpus().length,
    node: process.version,
    date: new Date().toISOString(),
    /** 1-minute load average when the benchmark started: other processes skew the timings. */
    loadAverage: os.loadavg()[0] ?? 0,
  };
  const rows = workloads().map((w) => {
    const row = measure(w, runs);
    console.log(`${w.name}: median ${row.medianMs.toFixed(2)} ms, min ${row.minMs.toFixed(2)} ms`);
    return row;
  });
  const slowest = rows.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  const passes = passTimes(workloads().find((w) => w.name === slowest.workload)!, runs);
  const text = [workloadTable(rows), "", `Steps of the slowest, ${slowest.workload}:`, "", passTable(passes)].join("\n");
  console.log(`\n${text}\n`);

  const outDir = fileURLToPath(new URL("../../../docs/benchmarks/", import.meta.url));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}lowering-time.json`, `${JSON.stringify({ machine, target: TARGET.name, goalMs: GOAL_MS, rows, slowest: { workload: slowest.workload, passes } }, null, 2)}\n`);
  const md = [
    "# Lowering time",
    "",
    "Generated by `pnpm bench:lower` (packages/codegen/bench/lower.bench.ts): `lower(sch, \"nvidia/h100\")`",
    `followed by \`codegenCuda\`, for a fresh schedule each run; ${WARMUP_RUNS} warm-up runs first (cold runs,`,
    `before V8 has optimised the compiler, are several times slower), then median and minimum of ${runs}.`,
    `The goal for one GEMM candidate is at most ${GOAL_MS} ms. The step table times each pass on its own`,
    "input (the passes in `LOWERING_PASSES` order, then `splitHostDevice`, `verifyGpuCode` and code generation).",
    "",
    `- machine: ${machine.cpu}, ${machine.cores} cores`,
    `- Node: ${machine.node}`,
    `- date: ${machine.date}`,
    `- 1-minute load average at start: ${machine.loadAverage.toFixed(2)} (timings are noisy above the core count)`,
    "",
    text,
    "",
  ].join("\n");
  writeFileSync(`${outDir}lowering-time.md`, md);
  console.log(`wrote ${outDir}lowering-time.json and lowering-time.md`);
}

main();
