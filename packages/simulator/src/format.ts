/** Plain-text summaries of simulation and comparison reports (for the CLI and logs). */
import type { ComparisonReport } from "./compare.js";
import { formatDim3, volume } from "./dims.js";
import type { BankConflictReport, RaceCounts, SharedAccessCounts, SimulationReport } from "./reports.js";

function ms(t: number): string {
  return t >= 100 ? `${t.toFixed(0)} ms` : `${t.toFixed(1)} ms`;
}

function more(shown: number, total: number): string[] {
  return total > shown ? [`    … ${total - shown} more`] : [];
}

/**
 * How many data races, on which memory: "3 data race(s) on global memory", "1 data race(s) on
 * shared memory and 2 on global memory".
 */
export function describeRaceCounts(counts: RaceCounts): string {
  if (counts.shared === 0) return `${counts.global} data race(s) on global memory`;
  const shared = `${counts.shared} data race(s) on shared memory`;
  return counts.global === 0 ? shared : `${shared} and ${counts.global} on global memory`;
}

export function formatSimulationReport(report: SimulationReport): string {
  const lines = [`simulated ${report.module}: ${report.kernels.length} kernel${report.kernels.length === 1 ? "" : "s"} in ${ms(report.timeMs)}`];
  for (const k of report.kernels) {
    const partial = k.blocksSimulated === volume(k.grid) ? "" : ` (${k.blocksSimulated} of its ${volume(k.grid)} blocks simulated)`;
    lines.push(
      `  ${k.kernel}: grid ${formatDim3(k.grid)}${partial}, block ${formatDim3(k.block)}, ${k.sharedBytes} B shared, ` +
        `${k.intervalsPerBlock - 1} barrier${k.intervalsPerBlock === 2 ? "" : "s"} per block, ${ms(k.timeMs)}`,
    );
  }
  if (report.raceCount > 0) {
    lines.push(`  ${describeRaceCounts(report.raceCounts)}:`);
    lines.push(...report.races.map((r) => `    ${r.message}`), ...more(report.races.length, report.raceCount));
  }
  if (report.uninitializedReadCount > 0) {
    lines.push(`  warning: ${report.uninitializedReadCount} read${report.uninitializedReadCount === 1 ? "" : "s"} of never-written shared memory:`);
    lines.push(...report.uninitializedReads.map((r) => `    ${r.message}`), ...more(report.uninitializedReads.length, report.uninitializedReadCount));
  }
  return lines.join("\n") + "\n";
}

export function formatComparison(c: ComparisonReport): string {
  const lines = [
    `compared with the sequential executor (seed ${c.seed}, rtol ${c.rtol}, atol ${c.atol}): ` +
      (c.matches ? "outputs match" : `${c.mismatchCount} mismatching element${c.mismatchCount === 1 ? "" : "s"}`),
  ];
  for (const o of c.outputs) {
    lines.push(
      `  ${o.buffer}: ${o.elements} elements, ${o.mismatchCount} mismatches, max abs error ${o.maxAbsError.toExponential(2)}, ` +
        `max rel error ${o.maxRelError.toExponential(2)}`,
    );
    for (const m of o.firstMismatches) lines.push(`    ${m.buffer}[${m.indices.join(", ")}]: expected ${m.expected}, got ${m.actual}`);
    lines.push(...more(o.firstMismatches.length, o.mismatchCount));
  }
  return lines.join("\n") + "\n";
}

const BANK_COLUMNS = ["access", "op", "bytes", "instructions", "wavefronts", "ideal", "conflicts", "wavefronts/instr", "worst"];

function countCells(c: SharedAccessCounts): string[] {
  const perInstruction = c.instructions === 0 ? "-" : (c.wavefronts / c.instructions).toFixed(2);
  return [
    String(c.instructions),
    String(c.wavefronts),
    String(c.idealWavefronts),
    String(c.conflicts),
    perInstruction,
    c.worstWay === 0 ? "-" : `${c.worstWay}-way`,
  ];
}

/**
 * The bank-conflict report as a table: one row per shared access site (grouped by kernel), then
 * the loads, stores and total. `wavefronts/instr` is what Nsight Compute calls an "n-way bank
 * conflict" in its shared-memory rule; `worst` is the largest n-way conflict of one instruction.
 */
export function formatBankConflicts(report: BankConflictReport): string {
  const rows: string[][] = [BANK_COLUMNS];
  let kernel: string | undefined;
  for (const site of report.sites) {
    if (site.kernel !== kernel) {
      kernel = site.kernel;
      rows.push([`kernel ${kernel}:`]);
    }
    rows.push([`  ${site.text}`, site.access, String(site.widthBytes), ...countCells(site)]);
  }
  rows.push(["loads", "", "", ...countCells(report.loads)], ["stores", "", "", ...countCells(report.stores)], ["total", "", "", ...countCells(report.total)]);
  // A kernel heading spans the row; it does not widen the access column.
  const widths = BANK_COLUMNS.map((_, c) => Math.max(...rows.filter((r) => r.length > 1).map((r) => r[c]?.length ?? 0)));
  const render = (r: readonly string[]): string =>
    r.length === 1 ? `  ${r[0]!}` : `  ${r.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ")}`.trimEnd();
  return [`shared-memory bank conflicts (32 banks of 4 B; warp-level accesses of all blocks):`, ...rows.map(render)].join("\n") + "\n";
}
