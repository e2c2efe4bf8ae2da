/**
 * The programs of recorded GPU tuning runs, rebuilt: a `pnpm bench:tune` report lists every
 * measured program with its sampled decisions (`tuned[].top[].decisions`, in trace order) and its
 * measured time; forcing those decisions into the workload's default CUDA design space and
 * running the postprocessors gives the program again — checked against the kernel knobs the report
 * recorded from the measured program's CUDA, so that a space that has changed since cannot pass
 * another program off as the measured one. Used to evaluate cost models offline on real
 * measurements.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type CudaTarget, cudaTarget as targetOf } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import type { Decision, Trace } from "@tessera/schedule";
import { type MeasureCandidate, type TuneContext, defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";
import { loweredModuleFor } from "../src/postproc/verify-gpu-code.js";
import { spearman } from "../test/cost-model/rank-correlation.js";
import { type GemmKnobs, gemmKnobsOf } from "./fast-region.js";
import { isReportFile, readReportText } from "./report-files.js";

export interface RecordedProgram {
  readonly ms: number;
  readonly candidate: MeasureCandidate;
}

export interface RecordedRun {
  /** The report's file name and run (workload, seed). */
  readonly name: string;
  readonly device: string;
  readonly programs: readonly RecordedProgram[];
  /** Records whose decisions no longer replay in today's space, or replay into another kernel than the one measured. */
  readonly skipped: number;
  /** cuBLAS SGEMM's median time measured in the same run (torch, TF32 off), when the report has it. */
  readonly cublasMs?: number;
}

interface Report {
  readonly device?: string;
  readonly torch?: { readonly ok?: boolean; readonly baselines?: readonly { readonly gemmOnly?: { readonly medianMs?: number } }[] };
  readonly tuned?: readonly { workload: string; seed: number; top?: readonly { ms: number; decisions?: readonly unknown[]; knobs?: GemmKnobs }[] }[];
}

/** The space's trace with the sampling decisions replaced, in order. */
function withDecisions(space: Trace, decisions: readonly unknown[]): Trace | undefined {
  let out = space;
  let k = 0;
  for (const inst of space.instructions) {
    if (inst.kind.name === "EnterPostproc") break;
    if (!inst.kind.name.startsWith("Sample")) continue;
    if (k >= decisions.length) return undefined;
    out = out.withDecision(inst, decisions[k++] as Decision);
  }
  return k === decisions.length ? out : undefined;
}

/** Whether the rebuilt function lowers to the kernel the report describes (true when it recorded no knobs). */
function sameKernel(func: PrimFunc, recorded: GemmKnobs | undefined): boolean {
  if (recorded === undefined) return true;
  const module = loweredModuleFor(func);
  return module !== undefined && JSON.stringify(gemmKnobsOf(module)) === JSON.stringify(recorded);
}

/** Every run of `workload` in the reports of `dir` whose programs carry their decisions. */
export function recordedRuns(
  dir: string,
  workload: string,
  func: PrimFunc,
  tgt: CudaTarget = targetOf("nvidia/h100"),
): { ctx: TuneContext; runs: RecordedRun[] } {
  const ctx = recordedRunsContext(func, tgt);
  return { ctx, runs: [...eachRecordedRun(dir, workload, func, tgt)] };
}

/** The tuning context the programs of `recordedRuns` are rebuilt in. */
function recordedRunsContext(func: PrimFunc, tgt: CudaTarget): TuneContext {
  return tuneContext(workloadOf(func), tgt, { seed: 1 });
}

/**
 * The runs of `recordedRuns`, one at a time: a caller that keeps only what it derives from each
 * run's programs lets their schedules go before the next run is rebuilt (all of them at once,
 * thousands of scheduled functions, outgrew Node's default heap).
 */
export function* eachRecordedRun(dir: string, workload: string, func: PrimFunc, tgt: CudaTarget = targetOf("nvidia/h100")): Generator<RecordedRun> {
  const ctx = recordedRunsContext(func, tgt);
  const gen = defaultCudaSpaceGenerator(tgt);
  gen.initialize(ctx);
  const space = gen.generateDesignSpace(ctx)[0]!.trace;
  for (const file of readdirSync(dir).filter(isReportFile).sort()) {
    let report: Report;
    try {
      report = JSON.parse(readReportText(join(dir, file))) as Report;
    } catch {
      continue;
    }
    for (const run of report.tuned ?? []) {
      if (run.workload !== workload || run.top === undefined || !run.top.some((p) => p.decisions !== undefined)) continue;
      const programs: RecordedProgram[] = [];
      let skipped = 0;
      for (const p of run.top) {
        const trace = p.decisions === undefined ? undefined : withDecisions(space, p.decisions);
        const out = trace === undefined ? undefined : replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
        if (out === undefined || !out.ok || !(p.ms > 0) || !sameKernel(out.sch.func, p.knobs)) {
          skipped++;
          continue;
        }
        programs.push({ ms: p.ms, candidate: { sch: out.sch, argsInfo: [] } });
      }
      const cublasMs = report.torch?.ok === true ? report.torch.baselines?.[0]?.gemmOnly?.medianMs : undefined;
      yield {
        name: `${file} seed ${run.seed}`,
        device: report.device ?? "unknown",
        programs,
        skipped,
        ...(cublasMs !== undefined && cublasMs > 0 ? { cublasMs } : {}),
      };
    }
  }
}

/** Runs with fewer programs (64-trial runs) are left out of rankings: a top 8 or 32 among 64 says little. */
export const MIN_RANKED_PROGRAMS = 128;

/**
 * How a model's scores (higher: faster) rank a run's programs: the Spearman correlation with
 * measured throughput, and per k the top-k regret — the fastest measured program among the k
 * best-scored over the run's fastest (1: the model's picks hold the best).
 */
export function rankingOf(scores: readonly number[], programs: readonly { readonly ms: number }[], ks: readonly number[]): { rho: number; regrets: number[] } {
  const best = Math.min(...programs.map((p) => p.ms));
  const ranked = programs.map((p, k) => [scores[k]!, p.ms] as const).sort((a, b) => b[0] - a[0]);
  return {
    rho: spearman(
      scores,
      programs.map((p) => 1 / p.ms),
    ),
    regrets: ks.map((n) => Math.min(...ranked.slice(0, n).map((x) => x[1])) / best),
  };
}
