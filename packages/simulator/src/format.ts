/** Plain-text summaries of simulation and comparison reports (for the CLI and logs). */
import type { ComparisonReport } from "./compare.js";
import { formatDim3 } from "./dims.js";
import type { SimulationReport } from "./reports.js";

function ms(t: number): string {
  return t >= 100 ? `${t.toFixed(0)} ms` : `${t.toFixed(1)} ms`;
}

function more(shown: number, total: number): string[] {
  return total > shown ? [`    … ${total - shown} more`] : [];
}

export function formatSimulationReport(report: SimulationReport): string {
  const lines = [`simulated ${report.module}: ${report.kernels.length} kernel${report.kernels.length === 1 ? "" : "s"} in ${ms(report.timeMs)}`];
  for (const k of report.kernels) {
    lines.push(
      `  ${k.kernel}: grid ${formatDim3(k.grid)}, block ${formatDim3(k.block)}, ${k.sharedBytes} B shared, ` +
        `${k.intervalsPerBlock - 1} barrier${k.intervalsPerBlock === 2 ? "" : "s"} per block, ${ms(k.timeMs)}`,
    );
  }
  if (report.raceCount > 0) {
    lines.push(`  ${report.raceCount} shared-memory race${report.raceCount === 1 ? "" : "s"}:`);
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
