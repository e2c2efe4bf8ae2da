/**
 * Lowering benchmark (`pnpm bench:lower` from the repo root): how long `lower(sch, "nvidia/h100")`
 * plus `codegenCuda` take for the 2048³ gemm+ReLU+add schedules (naive, manual, fast) and the
 * schedule corpus, warm (V8 has optimised the compiler first). Prints a table, then the time of
 * every pass for the slowest schedule, and writes docs/benchmarks/lowering-time.{json,md}.
 *
 *   tsx --conditions=@tessera/source packages/codegen/bench/lower.bench.ts [--runs N] [--compare REF [--with REF2] [--clock wall|cpu]]
 *
 * `--compare REF` times this working tree and commit REF side by side in one process, run by run
 * in turn (see ../../ir/bench/tree-at-ref.ts), and writes docs/benchmarks/lowering-compare.{json,md}
 * with the ratio per schedule: the figure to quote before a stop that touches ir, schedule or codegen.
 * `--clock cpu` times the process's CPU time instead of elapsed time: the steadier figure while
 * other work shares the machine.
 *
 * Each run lowers a fresh schedule (building it is not timed). A timed unit test would be flaky on
 * a shared machine; this reports, and the load average says how far to trust it.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fastSchedule, manualSchedule, naiveSchedule, scheduleCorpus } from "@tessera/corpus";
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
// @tessera/ir is a dependency of every package; its bench helpers are not exported, so by path.
import { clockArgument, machineInfo, machineLines, median, runsArgument, timeMs } from "../../ir/bench/bench-util.js";
import { type PairedRow, pairedTimes, writeComparedReport } from "../../ir/bench/paired.js";
import { type LoadedTree, type TreeSource, commandLine, loadPair, runIfComparing } from "../../ir/bench/tree-at-ref.js";
import { CUDA_LOWERING_PASSES, codegenCuda, lower, splitHostDevice, target, verifyGpuCode } from "../src/index.js";

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
    CUDA_LOWERING_PASSES.forEach((pass, index) => {
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

/** The functions a side of `--compare` must have (every commit since 2026-11-25 has them). */
interface LoweringSide {
  readonly lower: (sch: Schedule, target: unknown) => unknown;
  readonly codegenCuda: (module: unknown) => unknown;
  readonly target: (name: string) => unknown;
  readonly naiveSchedule: (n: number) => Schedule;
  readonly manualSchedule: (n: number) => Schedule;
  readonly fastSchedule: (n: number) => Schedule;
}

function loweringSide(tree: LoadedTree): LoweringSide {
  const { codegen, corpus } = tree.modules;
  const side = { ...codegen, ...corpus } as Partial<LoweringSide>;
  for (const name of ["lower", "codegenCuda", "target", "naiveSchedule", "manualSchedule", "fastSchedule"] as const) {
    if (typeof side[name] !== "function") throw new Error(`${tree.label} has no ${name} in @tessera/codegen or @tessera/corpus`);
  }
  return side as LoweringSide;
}

async function compare(sides: { readonly a: TreeSource; readonly b: TreeSource }, runs: number): Promise<void> {
  const clock = clockArgument();
  const machine = machineInfo();
  const packages = { codegen: "@tessera/codegen", corpus: "@tessera/corpus" };
  const [here, there] = await loadPair(sides, packages);
  const trees = [here, there] as const;
  try {
    const [hereSide, thereSide] = trees.map(loweringSide) as [LoweringSide, LoweringSide];
    const timed = (side: LoweringSide, build: (s: LoweringSide) => Schedule): (() => () => void) => {
      const tgt = side.target("nvidia/h100");
      return () => {
        const sch = build(side);
        return () => side.codegenCuda(side.lower(sch, tgt));
      };
    };
    const cases: [string, (s: LoweringSide) => Schedule][] = [
      ["gemm_relu_add naive 2048", (s) => s.naiveSchedule(2048)],
      ["gemm_relu_add manual 2048", (s) => s.manualSchedule(2048)],
      ["gemm_relu_add fast 2048", (s) => s.fastSchedule(2048)],
    ];
    const rows: PairedRow[] = cases.map(([name, build]) => {
      const row = pairedTimes(name, timed(hereSide, build), timed(thereSide, build), { warmup: WARMUP_RUNS, runs, clock });
      console.log(`${name}: ${trees[0].label} ${row.aMedianMs.toFixed(2)} ms, ${trees[1].label} ${row.bMedianMs.toFixed(2)} ms, ratio ${row.ratio.toFixed(3)}`);
      return row;
    });
    writeComparedReport(
      "lowering-compare",
      {
        title: "Lowering time: this tree beside another commit",
        command: `pnpm bench:lower ${commandLine(sides)} --runs ${runs}${clock === "cpu" ? " --clock cpu" : ""}`,
        clock,
        what: '`lower(sch, "nvidia/h100")` then `codegenCuda`, for a fresh schedule each run',
        warmup: WARMUP_RUNS,
        runs,
        machine,
        aLabel: trees[0].label,
        bLabel: trees[1].label,
        rows,
      },
      { target: "nvidia/h100" },
    );
  } finally {
    for (const t of trees) t.dispose();
  }
}

function main(): void {
  const runs = runsArgument();
  if (runIfComparing((sides) => compare(sides, runs))) return;
  const machine = machineInfo();
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
  writeFileSync(
    `${outDir}lowering-time.json`,
    `${JSON.stringify({ machine, target: TARGET.name, goalMs: GOAL_MS, rows, slowest: { workload: slowest.workload, passes } }, null, 2)}\n`,
  );
  const md = [
    "# Lowering time",
    "",
    'Generated by `pnpm bench:lower` (packages/codegen/bench/lower.bench.ts): `lower(sch, "nvidia/h100")`',
    `followed by \`codegenCuda\`, for a fresh schedule each run; ${WARMUP_RUNS} warm-up runs first (cold runs,`,
    `before V8 has optimised the compiler, are several times slower), then median and minimum of ${runs}.`,
    `The goal for one GEMM candidate is at most ${GOAL_MS} ms. The step table times each pass on its own`,
    "input (the passes in `CUDA_LOWERING_PASSES` order, then `splitHostDevice`, `verifyGpuCode` and code generation).",
    "",
    ...machineLines(machine),
    "",
    text,
    "",
  ].join("\n");
  writeFileSync(`${outDir}lowering-time.md`, md);
  console.log(`wrote ${outDir}lowering-time.json and lowering-time.md`);
}

main();
