/**
 * The CUDA of a program measured in a recorded `pnpm bench:tune` report, as today's lowering
 * emits it: its decisions forced into the workload's default design space (H200 target), the
 * postprocessors applied, the result lowered. Shows what a lowering change does to a measured
 * kernel without a GPU.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/recorded-cuda.ts \
 *     [REPORT.json (default: the 64-trial matmul 1000³ run of 2026-11-29)] [RANK (0: the fastest)]
 */
import { codegenCuda, cudaTarget } from "@tessera/codegen";
import { recordedProgramBuilder } from "./recorded-program.js";
import { readReportText } from "./report-files.js";

interface Report {
  readonly tuned?: readonly { readonly workload: string; readonly top?: readonly { readonly decisions?: readonly unknown[] }[] }[];
}

const file = process.argv[2] ?? "docs/benchmarks/tuning-2026-11-29-s5/tuning-64-matmul_1000.json.gz";
const rank = Number(process.argv[3] ?? 0);
const run = (JSON.parse(readReportText(file)) as Report).tuned?.[0];
const decisions = run?.top?.[rank]?.decisions;
if (run === undefined || decisions === undefined) throw new RangeError(`${file}: no program of rank ${rank} with recorded decisions`);

const build = recordedProgramBuilder(run.workload, cudaTarget("nvidia/h200"));
console.log(codegenCuda(build(decisions, file)).source);
