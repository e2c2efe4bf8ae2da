/**
 * `pnpm bench:prior-profiles`: every program of the recorded `pnpm bench:tune` runs of one
 * workload (recorded-runs.ts: rebuilt from its decisions, checked against its recorded knobs)
 * with its measured time and the analytic model's view of it — the estimate, and per kernel the
 * profile (instruction counts, shared wavefronts, global lines, fetch rounds…), resident blocks
 * and spilled registers — as one JSON array, so that a change to how the model combines them can
 * be judged offline by a script without rebuilding the programs (3 minutes for the 4,099
 * gemm+ReLU+add programs of sessions 17–19 here). No GPU.
 *
 *   tsx --conditions=@tessera/source packages/meta-schedule/bench/prior-profiles.ts
 *       --workload gemm_relu_add_2048 --reports DIR,DIR… --out FILE
 *
 * Each row: workload, dir, run (report file and seed), ms, cublasMs (cuBLAS in the same run, when
 * recorded), decisions (in trace order), seconds (the estimate) and kernels.
 */
import { writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parseArgs } from "node:util";
import { existingFolder } from "./command-line.js";

const USAGE = "usage: bench:prior-profiles --workload NAME --reports DIR,DIR… --out FILE";
const repoRoot = resolve(import.meta.dirname, "../../..");

function options(): { workload: string; reports: string[]; out: string } {
  try {
    const { values } = parseArgs({ options: { workload: { type: "string" }, reports: { type: "string" }, out: { type: "string" } } });
    if (values.workload === undefined || values.reports === undefined || values.out === undefined)
      throw new RangeError("--workload, --reports and --out are all needed");
    const reports = values.reports.split(",").filter((d) => d.length > 0);
    if (reports.length === 0) throw new RangeError("--reports names no folder");
    for (const dir of reports) existingFolder(repoRoot, dir);
    // The file is written after minutes of rebuilding: its folder must exist before they start.
    existingFolder(process.cwd(), dirname(values.out));
    return { workload: values.workload, reports, out: resolve(values.out) };
  } catch (err) {
    console.error(`bench:prior-profiles: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}

const { workload, reports, out } = options();
// The compiler loads once the command line is known to be good: a mistake is refused at once.
const { benchWorkload } = await import("./workloads.js");
const { latencyEstimateOf } = await import("../src/feature/latency-estimate-of.js");
const { recordedRuns } = await import("./recorded-runs.js");
let func;
try {
  func = benchWorkload(workload).func();
} catch (err) {
  console.error(`bench:prior-profiles: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
  process.exit(2);
}
const rows: unknown[] = [];
for (const dir of reports) {
  const { ctx, runs } = recordedRuns(resolve(repoRoot, dir), workload, func);
  for (const run of runs) {
    for (const program of run.programs) {
      const estimate = latencyEstimateOf(program.candidate, ctx);
      if (estimate === undefined) continue;
      const trace = program.candidate.sch.trace;
      rows.push({
        workload,
        dir,
        run: run.name,
        ms: program.ms,
        cublasMs: run.cublasMs,
        decisions: trace.instructions.filter((i) => i.kind.name.startsWith("Sample")).map((i) => trace.decisions.get(i) ?? null),
        seconds: estimate.seconds,
        kernels: estimate.kernels.map((k) => ({ blocksPerSM: k.blocksPerSM, spilledRegisters: k.spilledRegisters, bound: k.bound, profile: k.profile })),
      });
    }
  }
}
writeFileSync(out, JSON.stringify(rows));
console.log(`bench:prior-profiles: ${rows.length} programs of ${workload} → ${out}`);
