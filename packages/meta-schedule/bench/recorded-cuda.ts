/**
 * The CUDA of a program measured in a recorded `pnpm bench:tune` report, as today's lowering
 * emits it: its decisions forced into the workload's default design space (H200 target), the
 * postprocessors applied, the result lowered. Shows what a lowering change does to a measured
 * kernel without a GPU.
 *
 *   pnpm exec tsx --conditions=@tessera/source packages/meta-schedule/bench/recorded-cuda.ts \
 *     [REPORT.json (default: the 64-trial matmul 1000³ run of 2026-11-29)] [RANK (0: the fastest)]
 */
import { codegenCuda, cudaTarget, lower } from "@tessera/codegen";
import type { Decision, Trace } from "@tessera/schedule";
import { defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";
import { readReportText } from "./report-files.js";
import { benchWorkload } from "./workloads.js";

interface Report {
  readonly tuned?: readonly { readonly workload: string; readonly top?: readonly { readonly decisions?: readonly unknown[] }[] }[];
}

const file = process.argv[2] ?? "docs/benchmarks/tuning-2026-11-29-s5/tuning-64-matmul_1000.json.gz";
const rank = Number(process.argv[3] ?? 0);
const run = (JSON.parse(readReportText(file)) as Report).tuned?.[0];
const decisions = run?.top?.[rank]?.decisions;
if (run === undefined || decisions === undefined) throw new RangeError(`${file}: no program of rank ${rank} with recorded decisions`);

const func = benchWorkload(run.workload).func();
const target = cudaTarget("nvidia/h200");
const ctx = tuneContext(workloadOf(func), target, { seed: 1 });
const gen = defaultCudaSpaceGenerator(target);
gen.initialize(ctx);
const space = gen.generateDesignSpace(ctx)[0]!.trace;
let trace: Trace = space;
let next = 0;
for (const inst of space.instructions) {
  if (inst.kind.name === "EnterPostproc") break;
  if (inst.kind.name.startsWith("Sample")) trace = trace.withDecision(inst, decisions[next++] as Decision);
}
if (next !== decisions.length) throw new RangeError(`${file}: ${decisions.length} decisions recorded, the space samples ${next}`);
const replayed = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
if (!replayed.ok) throw new Error(`${file}: the recorded decisions no longer replay: ${replayed.reason}`);
console.log(codegenCuda(lower(replayed.sch.func, target)).source);
