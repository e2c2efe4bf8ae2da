/**
 * Schedule benchmark (`pnpm bench:schedule` from the repo root): how long building the 2048³
 * gemm+ReLU+add schedules (naive, manual, fast) and the schedule corpus takes, warm (V8 has
 * optimised the primitives first), two ways:
 *
 * - build: the corpus function that writes the schedule (`manualSchedule(2048)`, …), which makes
 *   the workload, a `Schedule` and runs every primitive;
 * - replay: `Trace.fromJSON(json).applyTo(new Schedule(workload))`, the path a tuner takes to
 *   rebuild a candidate from its trace (the JSON and the workload are made before timing).
 *
 * Prints a table, then the time of every instruction kind during the replay of the slowest
 * schedule, and writes docs/benchmarks/schedule-time.{json,md}.
 *
 *   tsx --conditions=@tessera/source packages/corpus/bench/schedule-apply.bench.ts [--runs N] [--compare REF [--with REF2] [--clock wall|cpu]]
 *
 * `--compare REF` times this working tree and commit REF side by side in one process, run by run
 * in turn (see ../../ir/bench/tree-at-ref.ts), and writes docs/benchmarks/schedule-compare.{json,md};
 * `--clock cpu` times the process's CPU time instead of elapsed time (steadier on a busy machine).
 *
 * A timed unit test would be flaky on a shared machine; this reports, and the load average says
 * how far to trust it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type PrimFunc, gemmReluAdd } from "@tessera/ir";
import { Schedule, Trace, type TraceJSON } from "@tessera/schedule";
import { clockArgument, machineInfo, machineLines, median, runsArgument, timeMs } from "../../ir/bench/bench-util.js";
import { type PairedRow, pairedTimes, writeComparedReport } from "../../ir/bench/paired.js";
import { type LoadedTree, type TreeSource, commandLine, loadPair, runIfComparing } from "../../ir/bench/tree-at-ref.js";
import { fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "../src/index.js";

/** Runs before timing, so that V8 has compiled the schedule code: cold runs are several times slower. */
const WARMUP_RUNS = 15;
/** The target for building one schedule from its trace. */
const GOAL_MS = 5;

interface Workload {
  readonly name: string;
  /** The unscheduled function, for replays. */
  readonly original: () => PrimFunc;
  readonly build: () => Schedule;
}

interface Row {
  readonly workload: string;
  readonly instructions: number;
  readonly build: Stats;
  readonly replay: Stats;
  /** The first build in this process: cold for the first row, partly warm for later ones. */
  readonly firstBuildMs: number;
  readonly runs: number;
}

interface Stats {
  readonly medianMs: number;
  readonly minMs: number;
}

interface KindRow extends Stats {
  readonly kind: string;
  /** Instructions of this kind in the trace. */
  readonly count: number;
}

function workloads(): Workload[] {
  const gemm = (n: number) => () => gemmReluAdd(n).func;
  return [
    { name: "gemm_relu_add naive 2048", original: gemm(2048), build: () => naiveSchedule(2048) },
    { name: "gemm_relu_add manual 2048", original: gemm(2048), build: () => manualSchedule(2048) },
    { name: "gemm_relu_add fast 2048", original: gemm(2048), build: () => fastSchedule(2048) },
    ...scheduleCorpus().map((e) => ({ name: `corpus ${e.name}`, original: e.original, build: e.build })),
  ];
}

const stats = (times: readonly number[]): Stats => ({ medianMs: median(times), minMs: Math.min(...times) });

function measure(w: Workload, runs: number): Row {
  const t0 = performance.now();
  const reference = w.build();
  const firstBuildMs = performance.now() - t0;
  const json: TraceJSON = reference.trace.toJSON();
  const buildTimes: number[] = [];
  const replayTimes: number[] = [];
  for (let i = 0; i < WARMUP_RUNS + runs; i++) {
    const buildMs = timeMs(() => w.build());
    const func = w.original();
    const replayMs = timeMs(() => Trace.fromJSON(json).applyTo(new Schedule(func)));
    if (i >= WARMUP_RUNS) {
      buildTimes.push(buildMs);
      replayTimes.push(replayMs);
    }
  }
  return { workload: w.name, instructions: reference.trace.instructions.length, build: stats(buildTimes), replay: stats(replayTimes), firstBuildMs, runs };
}

/** The time of each instruction kind (summed over the trace) while replaying `w`'s trace. */
function kindTimes(w: Workload, runs: number): KindRow[] {
  const trace = Trace.fromJSON(w.build().trace.toJSON());
  const counts = new Map<string, number>();
  for (const inst of trace.instructions) counts.set(inst.kind.name, (counts.get(inst.kind.name) ?? 0) + 1);
  const samples = new Map<string, number[]>();
  for (let i = 0; i < WARMUP_RUNS + runs; i++) {
    const sch = new Schedule(w.original());
    const perKind = new Map<string, number>();
    const invokeKind = sch.invokeKind.bind(sch);
    sch.invokeKind = (kind, ...rest) => {
      const t0 = performance.now();
      try {
        return invokeKind(kind, ...rest);
      } finally {
        perKind.set(kind.name, (perKind.get(kind.name) ?? 0) + performance.now() - t0);
      }
    };
    trace.applyTo(sch);
    if (i < WARMUP_RUNS) continue;
    for (const [kind, ms] of perKind) samples.set(kind, [...(samples.get(kind) ?? []), ms]);
  }
  return [...samples].map(([kind, ms]) => ({ kind, count: counts.get(kind) ?? 0, ...stats(ms) })).sort((a, b) => b.medianMs - a.medianMs);
}

function workloadTable(rows: readonly Row[]): string {
  const lines = rows.map(
    (r) =>
      `| ${r.workload} | ${r.instructions} | ${r.build.medianMs.toFixed(2)} | ${r.build.minMs.toFixed(2)} | ${r.replay.medianMs.toFixed(2)} | ${r.replay.minMs.toFixed(2)} | ${r.firstBuildMs.toFixed(1)} | ${r.runs} |`,
  );
  return [
    "| schedule | instructions | build median (ms) | build min (ms) | replay median (ms) | replay min (ms) | first build (ms) | runs |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...lines,
  ].join("\n");
}

function kindTable(rows: readonly KindRow[]): string {
  const lines = rows.map((r) => `| ${r.kind} | ${r.count} | ${r.medianMs.toFixed(2)} | ${r.minMs.toFixed(2)} |`);
  return ["| instruction | count | median (ms) | min (ms) |", "|---|---:|---:|---:|", ...lines].join("\n");
}

/** What a side of `--compare` must have. */
interface ScheduleSide {
  readonly gemm: (n: number) => PrimFunc;
  readonly Schedule: new (func: PrimFunc) => Schedule;
  readonly fromJSON: (json: unknown) => { applyTo(sch: Schedule): void };
  readonly builders: Record<string, (n: number) => Schedule>;
}

function scheduleSide(tree: LoadedTree): ScheduleSide {
  const { ir, schedule, corpus } = tree.modules as Record<string, Record<string, unknown>>;
  const need = (mod: Record<string, unknown> | undefined, name: string): unknown => {
    const v = mod?.[name];
    if (v === undefined) throw new Error(`${tree.label} has no ${name}`);
    return v;
  };
  const trace = need(schedule, "Trace") as { fromJSON(json: unknown): { applyTo(sch: Schedule): void } };
  const gemmReluAddAt = need(ir, "gemmReluAdd") as (n: number) => { func: PrimFunc };
  return {
    gemm: (n) => gemmReluAddAt(n).func,
    Schedule: need(schedule, "Schedule") as ScheduleSide["Schedule"],
    fromJSON: (json) => trace.fromJSON(json),
    builders: {
      naive: need(corpus, "naiveSchedule") as (n: number) => Schedule,
      manual: need(corpus, "manualSchedule") as (n: number) => Schedule,
      fast: need(corpus, "fastSchedule") as (n: number) => Schedule,
    },
  };
}

async function compare(sides: { readonly a: TreeSource; readonly b: TreeSource }, runs: number): Promise<void> {
  const clock = clockArgument();
  const machine = machineInfo();
  const packages = { ir: "@tessera/ir", schedule: "@tessera/schedule", corpus: "@tessera/corpus" };
  const [here, there] = await loadPair(sides, packages);
  try {
    const timedSides = [scheduleSide(here), scheduleSide(there)] as const;
    const rows: PairedRow[] = [];
    for (const which of ["naive", "manual", "fast"]) {
      const build = (side: ScheduleSide) => () => () => void side.builders[which]!(2048);
      // Each side replays the trace its own build writes (the JSON format may differ between commits).
      const replay = (side: ScheduleSide) => {
        const json: unknown = side.builders[which]!(2048).trace.toJSON();
        return () => {
          const func = side.gemm(2048);
          return () => side.fromJSON(json).applyTo(new side.Schedule(func));
        };
      };
      for (const [what, make] of [
        ["build", build],
        ["replay", replay],
      ] as const) {
        const row = pairedTimes(`gemm_relu_add ${which} 2048, ${what}`, make(timedSides[0]), make(timedSides[1]), { warmup: WARMUP_RUNS, runs, clock });
        console.log(`${row.name}: ${here.label} ${row.aMedianMs.toFixed(2)} ms, ${there.label} ${row.bMedianMs.toFixed(2)} ms, ratio ${row.ratio.toFixed(3)}`);
        rows.push(row);
      }
    }
    writeComparedReport("schedule-compare", {
      title: "Schedule time: this tree beside another commit",
      command: `pnpm bench:schedule ${commandLine(sides)} --runs ${runs}${clock === "cpu" ? " --clock cpu" : ""}`,
      clock,
      what: "building each 2048³ schedule with its corpus function, and replaying its trace on a fresh workload",
      warmup: WARMUP_RUNS,
      runs,
      machine,
      aLabel: here.label,
      bLabel: there.label,
      rows,
    });
  } finally {
    here.dispose();
    there.dispose();
  }
}

function main(): void {
  const runs = runsArgument();
  if (runIfComparing((sides) => compare(sides, runs))) return;
  const machine = machineInfo();
  const rows = workloads().map((w) => {
    const row = measure(w, runs);
    const show = (s: Stats) => `median ${s.medianMs.toFixed(2)} ms, min ${s.minMs.toFixed(2)} ms`;
    console.log(`${w.name}: build ${show(row.build)}; replay ${show(row.replay)}`);
    return row;
  });
  const slowest = rows.reduce((a, b) => (b.replay.medianMs > a.replay.medianMs ? b : a));
  const kinds = kindTimes(workloads().find((w) => w.name === slowest.workload)!, runs);
  const text = [workloadTable(rows), "", `Instructions of the slowest replay, ${slowest.workload}:`, "", kindTable(kinds)].join("\n");
  console.log(`\n${text}\n`);

  const outDir = fileURLToPath(new URL("../../../docs/benchmarks/", import.meta.url));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(
    `${outDir}schedule-time.json`,
    `${JSON.stringify({ machine, goalMs: GOAL_MS, rows, slowest: { workload: slowest.workload, kinds } }, null, 2)}\n`,
  );
  const md = [
    "# Schedule time",
    "",
    "Generated by `pnpm bench:schedule` (packages/corpus/bench/schedule-apply.bench.ts). *build*: the corpus",
    "function that writes the schedule (workload, `Schedule`, every primitive); *replay*:",
    "`Trace.fromJSON(json).applyTo(new Schedule(workload))` with the trace's JSON and the workload made",
    `beforehand. ${WARMUP_RUNS} warm-up runs first (cold runs, before V8 has optimised the primitives, are several`,
    `times slower), then median and minimum of ${runs}. The goal for one schedule is at most ${GOAL_MS} ms. The`,
    "*first build* is the first call in the process, before any warm-up: cold for the first row, partly warm for the",
    "later rows (code they share with earlier rows is already compiled). The instruction table sums the time of each",
    "instruction kind over one replay of the slowest schedule; reading the JSON and making the `Schedule` are not in",
    "it. The gap between a median and its minimum is mostly garbage collection and other processes.",
    "",
    ...machineLines(machine),
    "",
    text,
    "",
  ].join("\n");
  writeFileSync(`${outDir}schedule-time.md`, md);
  console.log(`wrote ${outDir}schedule-time.json and schedule-time.md`);
}

main();
