/**
 * Helpers the benchmark scripts share (packages/ir/bench/executor.bench.ts,
 * packages/codegen/bench/lower.bench.ts, packages/corpus/bench/schedule-apply.bench.ts,
 * packages/meta-schedule/bench/tune.bench.ts). @tessera/ir is a dependency of every package, so
 * the others import this file by its path; it is not part of the package's exports.
 */
import os from "node:os";

/** The median of `xs` (NaN when empty). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length === 0 ? Number.NaN : s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Wall time of one call of `f`, in ms. */
export function timeMs(f: () => void): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

/**
 * What a paired comparison times: `wall` (elapsed time) or `cpu` (the process's user + system CPU
 * time, garbage collection and compiler threads included). On a machine busy with other work a
 * process waiting for a core accrues wall time but no CPU time, so `cpu` is the steadier figure.
 */
export type Clock = "wall" | "cpu";

/** CPU time (user + system, all threads of the process) of one call of `f`, in ms. */
export function cpuTimeMs(f: () => void): number {
  const t0 = process.cpuUsage();
  f();
  const d = process.cpuUsage(t0);
  return (d.user + d.system) / 1000;
}

/** `--clock wall|cpu` from the command line, or `wall`. */
export function clockArgument(): Clock {
  const i = process.argv.indexOf("--clock");
  if (i < 0) return "wall";
  const value = process.argv[i + 1];
  if (value !== "wall" && value !== "cpu") throw new Error(`--clock needs wall or cpu, got ${value ?? "nothing"}`);
  return value;
}

/** `--runs N` from the command line (a positive integer), or `fallback`. */
export function runsArgument(fallback = 20): number {
  const i = process.argv.indexOf("--runs");
  const n = i < 0 ? fallback : Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--runs needs a positive integer, got ${process.argv[i + 1]}`);
  return n;
}

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly date: string;
  /** 1-minute load average when the benchmark started: other processes skew the timings. */
  readonly loadAverage: number;
}

/** The machine a benchmark runs on, for its report. */
export function machineInfo(): MachineInfo {
  return {
    cpu: os.cpus()[0]?.model ?? "unknown",
    cores: os.cpus().length,
    node: process.version,
    date: new Date().toISOString(),
    loadAverage: os.loadavg()[0] ?? 0,
  };
}

/** The report lines that say where a benchmark ran (machine, Node, date, load at the start). */
export function machineLines(machine: MachineInfo): string[] {
  return [
    `- machine: ${machine.cpu}, ${machine.cores} cores`,
    `- Node: ${machine.node}`,
    `- date: ${machine.date}`,
    `- 1-minute load average at start: ${machine.loadAverage.toFixed(2)} (timings are noisy above the core count)`,
  ];
}
