/**
 * Executor and simulator benchmark (`pnpm bench:exec` from the repo root): the time to compile and
 * run fixed corpus functions on the sequential CPU executor (`compilePrimFunc(f).run(args)`: the
 * intermediate functions of the front passes that `execution-large.test.ts` checks) and to
 * simulate fixed corpus kernels (`simulate(lower(schedule, "nvidia/h100"), args)`, races detected,
 * as the grader's numerics run them). Prints a table and writes docs/benchmarks/exec-time.{json,md}.
 *
 *   tsx --conditions=@tessera/source packages/simulator/bench/exec.bench.ts [--runs N] [--only TEXT] [--compare REF [--with REF2] [--clock wall|cpu]]
 *
 * `--compare REF` times this working tree and commit REF side by side in one process, run by run
 * in turn (see ../../ir/bench/tree-at-ref.ts), and writes docs/benchmarks/exec-compare.{json,md}
 * with the ratio per case. `--clock cpu` times the process's CPU time (garbage collection and
 * V8's compiler threads included), the steadier figure on a shared machine.
 *
 * Each timed run compiles afresh, as a test does: what V8 makes of the generated code (its
 * optimising compiler's work included) is part of the cost. The inputs are built before timing.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as codegen from "@tessera/codegen";
import * as corpus from "@tessera/corpus";
import * as ir from "@tessera/ir";
// @tessera/ir is a dependency of every package; its bench helpers are not exported, so by path.
import { type Clock, clockArgument, cpuTimeMs, machineInfo, machineLines, median, runsArgument, timeMs } from "../../ir/bench/bench-util.js";
import { type PairedRow, pairedTimes, writeComparedReport } from "../../ir/bench/paired.js";
import { type LoadedTree, commandLine, loadPair, runIfComparing } from "../../ir/bench/tree-at-ref.js";
import * as simulator from "../src/index.js";

/** The functions a side must have (every commit since 2026-11-25 has them). */
interface Side {
  readonly compilePrimFunc: (f: unknown) => { run(args: unknown[]): void };
  readonly randomArgs: (f: unknown, seed: number) => unknown[];
  readonly scheduleCorpus: () => readonly { name: string; build(): { func: unknown }; original(): unknown }[];
  readonly PASSES_FRONT: readonly { name: string; run(f: unknown, ctx: unknown): unknown }[];
  readonly target: (name: string) => unknown;
  readonly lower: (sch: unknown, target: string) => unknown;
  readonly simulate: (module: unknown, args: readonly unknown[]) => unknown;
  readonly fastSchedule: (n: number) => { func: unknown };
}

interface Case {
  readonly name: string;
  /** Untimed setup on one side; returns the work to time. */
  readonly prepare: (side: Side) => () => void;
}

function corpusEntry(side: Side, name: string) {
  const entry = side.scheduleCorpus().find((e) => e.name === name);
  if (entry === undefined) throw new Error(`the corpus has no entry ${name}`);
  return entry;
}

/** An executor case: corpus entry `entry` after the first `passes` front passes (for the T4, as execution-large.test.ts). */
function executorCase(entry: string, passes: number): Case {
  return {
    name: `executor ${entry} ${passes === 0 ? "scheduled" : `+${passes} front passes`}`,
    prepare(side) {
      const e = corpusEntry(side, entry);
      const ctx = { target: side.target("nvidia/tesla-t4") };
      let f = e.build().func;
      for (const pass of side.PASSES_FRONT.slice(0, passes)) f = pass.run(f, ctx);
      const args = side.randomArgs(e.original(), 11);
      return () => side.compilePrimFunc(f).run(args);
    },
  };
}

/** A simulator case: corpus entry `entry` lowered for the H100 and simulated whole. */
function simulatorCase(entry: string): Case {
  return simulated(entry, (side) => corpusEntry(side, entry).build());
}

/** A simulator case: the schedule `build` makes, lowered for the H100 and simulated whole. */
function simulated(name: string, build: (side: Side) => { func: unknown }): Case {
  return {
    name: `simulator ${name} (h100)`,
    prepare(side) {
      const sch = build(side);
      const module = side.lower(sch, "nvidia/h100");
      const args = side.randomArgs(sch.func, 11);
      return () => side.simulate(module, args);
    },
  };
}

const CASES: readonly Case[] = [
  executorCase("gemm_relu_add_fast", 0),
  executorCase("gemm_relu_add_fast", 2),
  executorCase("gemm_relu_add_fast", 3),
  executorCase("gemm_relu_add_pipelined", 3),
  executorCase("gemm_relu_add_pipelined", 6),
  simulatorCase("gemm_relu_add_manual"),
  simulatorCase("gemm_relu_add_fast"),
  simulatorCase("gemm_relu_add_pipelined"),
  // The fast schedule at the size fast-gemm.test.ts simulates it.
  simulated("fastSchedule(256)", (side) => side.fastSchedule(256)),
];

/** `--only TEXT`: the cases whose name contains TEXT (e.g. `simulator`), or all. */
function selectedCases(): readonly Case[] {
  const i = process.argv.indexOf("--only");
  if (i < 0) return CASES;
  const text = process.argv[i + 1] ?? "";
  const cases = CASES.filter((c) => c.name.includes(text));
  if (cases.length === 0) throw new Error(`--only ${text}: no case's name contains it (${CASES.map((c) => c.name).join("; ")})`);
  return cases;
}

function onlyArgument(): string {
  const i = process.argv.indexOf("--only");
  return i < 0 ? "" : ` --only ${JSON.stringify(process.argv[i + 1] ?? "")}`;
}

/** Untimed runs of each case first (V8 compiles the executor and simulator themselves). */
const WARMUP_RUNS = 1;

function thisTree(): Side {
  return { ...ir, ...codegen, ...corpus, ...simulator } as unknown as Side;
}

function sideOf(tree: LoadedTree): Side {
  const side = Object.assign({}, ...Object.values(tree.modules)) as Partial<Side>;
  for (const name of ["compilePrimFunc", "randomArgs", "scheduleCorpus", "PASSES_FRONT", "target", "lower", "simulate", "fastSchedule"] as const) {
    if (side[name] === undefined) throw new Error(`${tree.label} has no ${name}`);
  }
  return side as Side;
}

interface Row {
  readonly name: string;
  readonly medianMs: number;
  readonly minMs: number;
  readonly runs: number;
}

function measure(c: Case, side: Side, runs: number, clock: Clock): Row {
  const time = clock === "cpu" ? cpuTimeMs : timeMs;
  for (let i = 0; i < WARMUP_RUNS; i++) c.prepare(side)();
  const times = Array.from({ length: runs }, () => time(c.prepare(side)));
  return { name: c.name, medianMs: median(times), minMs: Math.min(...times), runs };
}

async function compare(sides: Parameters<Parameters<typeof runIfComparing>[0]>[0], runs: number): Promise<void> {
  const clock = clockArgument();
  const machine = machineInfo();
  const packages = { ir: "@tessera/ir", codegen: "@tessera/codegen", corpus: "@tessera/corpus", simulator: "@tessera/simulator" };
  const trees = await loadPair(sides, packages);
  try {
    const [a, b] = trees.map(sideOf) as [Side, Side];
    const rows: PairedRow[] = selectedCases().map((c) => {
      const row = pairedTimes(
        c.name,
        () => c.prepare(a),
        () => c.prepare(b),
        { warmup: WARMUP_RUNS, runs, clock },
      );
      console.log(
        `${c.name}: ${trees[0].label} ${row.aMedianMs.toFixed(1)} ms, ${trees[1].label} ${row.bMedianMs.toFixed(1)} ms, ratio ${row.ratio.toFixed(3)}`,
      );
      return row;
    });
    writeComparedReport("exec-compare", {
      title: "Executor and simulator time: this tree beside another commit",
      command: `pnpm bench:exec ${commandLine(sides)} --runs ${runs}${clock === "cpu" ? " --clock cpu" : ""}${onlyArgument()}`,
      clock,
      what: "`compilePrimFunc(f).run(args)` of corpus functions after front passes, and `simulate` of lowered corpus kernels (compile included)",
      warmup: WARMUP_RUNS,
      runs,
      machine,
      aLabel: trees[0].label,
      bLabel: trees[1].label,
      rows,
    });
  } finally {
    for (const t of trees) t.dispose();
  }
}

function main(): void {
  const runs = runsArgument(5);
  if (runIfComparing((sides) => compare(sides, runs))) return;
  const clock = clockArgument();
  const machine = machineInfo();
  const side = thisTree();
  const rows = selectedCases().map((c) => {
    const row = measure(c, side, runs, clock);
    console.log(`${c.name}: median ${row.medianMs.toFixed(1)} ms, min ${row.minMs.toFixed(1)} ms`);
    return row;
  });
  const text = [
    "| case | median (ms) | min (ms) | runs |",
    "|---|---:|---:|---:|",
    ...rows.map((r) => `| ${r.name} | ${r.medianMs.toFixed(1)} | ${r.minMs.toFixed(1)} | ${r.runs} |`),
  ].join("\n");
  console.log(`\n${text}\n`);
  const outDir = fileURLToPath(new URL("../../../docs/benchmarks/", import.meta.url));
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}exec-time.json`, `${JSON.stringify({ machine, clock, warmup: WARMUP_RUNS, rows }, null, 2)}\n`);
  const md = [
    "# Executor and simulator time",
    "",
    "Generated by `pnpm bench:exec` (packages/simulator/bench/exec.bench.ts). *executor* cases: `compilePrimFunc(f).run(args)`",
    "of a corpus function after the first N front passes (for the T4), the functions execution-large.test.ts checks;",
    '*simulator* cases: `simulate(lower(schedule, "nvidia/h100"), args)` with race detection, as the grader runs it.',
    `Each run compiles afresh; ${WARMUP_RUNS} warm-up run per case, then median and minimum of ${runs}.`,
    clock === "cpu" ? "Times are the process's CPU time (`--clock cpu`)." : "Times are elapsed (wall-clock) time.",
    "",
    ...machineLines(machine),
    "",
    text,
    "",
  ].join("\n");
  writeFileSync(`${outDir}exec-time.md`, md);
  console.log(`wrote ${outDir}exec-time.json and exec-time.md`);
}

main();
