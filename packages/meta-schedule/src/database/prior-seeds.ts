/**
 * Seeds for a new GEMM-like task from configurations measured best elsewhere, for when the
 * database holds no similar workload (beyond TVM, whose search starts from random samples): the
 * 2048³ gemm+ReLU+add winners of the default CUDA space on an H200, stored by value and moved onto
 * the task's design space the way similar-records.ts moves a record (a categorical takes the
 * nearest candidate, tile factors are kept and replay repairs those that no longer divide).
 * Validation is the caller's replay. The 2048³ gemm+ReLU+add itself gets none: its benchmark
 * measures the search.
 *
 * A prior is either such a table of decisions by value or a rule that gives each sampling step of a
 * design space its decision (`DecisionRule`), which applies to every design space and every shape:
 * the CPU's priors are the structure of the hand-written d2l kernels (`cpuMicroKernelPriors`).
 */
import { gemmReluAdd } from "@tessera/ir";
import type { Decision, Instruction, Trace } from "@tessera/schedule";
import { annotationKeysOf } from "../mutator/sampled-annotations.js";
import { instructionsBeforePostproc } from "../mutator/trace-queries.js";
import { LAYOUT_REWRITE, PARALLEL_REGION, UNROLL_EXPLICIT, UNROLL_IMPLICIT } from "../schedule-utils/annotations.js";
import { CPU_PARALLELIZE_VECTORIZE_UNROLL } from "../space/cpu-defaults.js";
import type { TuneContext } from "../tune-context.js";
import { type Workload, workloadOf } from "../workload.js";
import { nearestIndex } from "./similar-records.js";

/** A sampling decision by value: the chosen candidate of a categorical, or a perfect tile's factors. */
export type DecisionValue = number | readonly number[];

/**
 * The sampling decisions, in trace order, of the fastest distinct configurations of the 256-trial
 * gemm+ReLU+add 2048³ runs on an H200 (docs/benchmarks/tuning-gemm-256-2026-11-29 and -11-28;
 * 1.04–1.06× cuBLAS): per matrix axis threads, register tile, [blocks, virtual threads] and the
 * threads' two levels; then the k chunk and the knobs of MultiLevelTiling and the other rules.
 */
export const GEMM_WINNERS_2048: readonly (readonly DecisionValue[])[] = [
  // 128×128 block tiles of 128 threads with 8×16 accumulators each (0.348 ms).
  [8, 8, [16, 2], [4, 2], 16, 4, [16, 2], [8, 2], 8, 2, 1, 1, 1, 4, 1, 1, 1, 1, -1, 2048],
  // The same tile with 4 virtual threads on i (0.349 ms).
  [8, 4, [16, 4], [4, 2], 16, 4, [16, 2], [8, 2], 8, 2, 1, 1, 1, 4, 1, 1, 1, 1, -1, 2048],
  // 128×128 from 16 × 8-wide register rows (0.353 ms).
  [8, 8, [16, 2], [2, 4], 16, 8, [16, 1], [8, 2], 8, 4, 1, 1, 1, 2, 1, 1, 1, 1, -1, 2048],
  // 128×128 of 256 threads with 64 accumulators each (0.360 ms).
  [16, 8, [8, 2], [8, 2], 16, 4, [16, 2], [16, 1], 8, 1, 1, 1, 1, 4, 1, 0, 1, 1, -1, 2048],
];

const isSampling = (inst: Instruction): boolean => inst.kind.name === "SampleCategorical" || inst.kind.name === "SamplePerfectTile";
/** The steps a decision rule decides: the sampling steps and the compute locations (RandomComputeLocation's). */
const isRuled = (inst: Instruction): boolean => isSampling(inst) || inst.kind.name === "SampleComputeLocation";
/** SampleComputeLocation's decision for the root (the block computed whole, in a loop nest of its own). */
const ROOT_LOCATION = -1;

/** A sampling step of a design space, as a decision rule sees it. */
export interface SamplingStep {
  readonly inst: Instruction;
  /** Its decision in the design space (a perfect tile's factors multiply to the loop's extent). */
  readonly current: Decision;
  /** The annotation key its value is annotated under, if any (a categorical knob). */
  readonly feeds: string | undefined;
  /** Its position among the space's SamplePerfectTile steps (0: the first tiled loop's), or -1. */
  readonly tileIndex: number;
  /** The decisions given to the space's earlier SamplePerfectTile steps, in order. */
  readonly earlierTiles: readonly (readonly number[])[];
}

/** A prior as a rule: each sampling step's decision (undefined: the design space's own). */
export interface DecisionRule {
  readonly name: string;
  decide(step: SamplingStep): Decision | undefined;
}

export type Prior = readonly DecisionValue[] | DecisionRule;

const isRule = (prior: Prior): prior is DecisionRule => !Array.isArray(prior);

/** The index of the smallest (or largest) number among a categorical's candidates (attrs[0]) or its probabilities (attrs[1]). */
function extremeIndex(inst: Instruction, which: "min" | "max", of: "candidates" | "probabilities" = "candidates"): number | undefined {
  const listed = inst.attrs[of === "candidates" ? 0 : 1];
  if (!Array.isArray(listed) || listed.length === 0) return undefined;
  const values = listed.map(Number);
  const target = which === "min" ? Math.min(...values) : Math.max(...values);
  return values.indexOf(target);
}

/** The largest divisor of `extent` that is at most `cap`. */
function largestDivisorUpTo(extent: number, cap: number): number {
  for (let d = Math.min(extent, cap); d > 1; d--) if (extent % d === 0) return d;
  return 1;
}

/** Which parallel structure a seed takes where the space samples it (PARALLEL_REGION): the payoff rule's answer (the prior) or the other. */
export type ParallelChoice = "rule" | "other";

/**
 * The structure of the hand-written d2l CPU kernels (@tessera/corpus's matmulCpu and conv2dCpu: row or
 * channel blocks in parallel, the column tiles inside them, each register tile accumulated over the
 * whole reduction in one serial loop), in the CPU space's SSRSRS tiling: the leading tiled spatial loops'
 * outer levels take as many parallel jobs as the space allows (`maxJobs`, each the largest divisor of
 * its extent within what the earlier ones left), the rest of them and the other spatial loops their
 * second level, each reduction its outer level, the register tile innermost; no auto-unroll beyond the
 * tile's rows; the operands packed (`pack`: all RewriteLayout can) or read in place (none); where the
 * space samples the parallel structure, the payoff rule's answer or the other (`parallel`); every
 * producer stage RandomComputeLocation places computed whole at the root, as the hand kernels do (the
 * conv2d's padding: computed inside a tile it is computed again for every tile, 10–30× slower).
 * RewriteParallelVectorizeUnroll runs the outer levels in parallel where that pays.
 */
function microKernelStructure(pack: "none" | "all", maxJobs: number, parallel: ParallelChoice = "rule"): DecisionRule {
  const operands = pack === "none" ? "operands in place" : "operands packed";
  return {
    name: `micro-kernel structure, ${operands}${parallel === "rule" ? "" : ", the other parallel structure"}`,
    decide({ inst, current, feeds, earlierTiles }): Decision | undefined {
      if (inst.kind.name === "SamplePerfectTile" && Array.isArray(current)) {
        const extent = current.reduce((a, b) => a * b, 1);
        if (current.length < 3) return current.map((_, k) => (k === 0 ? extent : 1));
        const jobsBefore = earlierTiles.filter((t) => t.length >= 3).reduce((a, t) => a * t[0]!, 1);
        const jobs = largestDivisorUpTo(extent, Math.floor(maxJobs / jobsBefore));
        return current.map((_, k) => (k === 0 ? jobs : k === 1 ? extent / jobs : 1));
      }
      if (inst.kind.name === "SampleComputeLocation") return ROOT_LOCATION;
      if (inst.kind.name !== "SampleCategorical") return undefined;
      if (feeds === UNROLL_EXPLICIT || feeds === UNROLL_IMPLICIT) return extremeIndex(inst, "min");
      if (feeds === LAYOUT_REWRITE) return extremeIndex(inst, pack === "none" ? "min" : "max");
      if (feeds === PARALLEL_REGION) return extremeIndex(inst, parallel === "rule" ? "max" : "min", "probabilities");
      return undefined;
    },
  };
}

/**
 * The CPU target's priors for `cores` cores: the hand-written kernels' structure, operands in place
 * first (what the hand schedule does while B fits L2), then the same with the parallel structure the
 * payoff rule refused (or chose), then packed. The second gives the same seed as the first wherever
 * the space does not sample the parallel structure (seedsFromPriors drops the repeat).
 */
export function cpuMicroKernelPriors(cores: number): DecisionRule[] {
  const maxJobs = CPU_PARALLELIZE_VECTORIZE_UNROLL.maxJobsPerCore * Math.max(1, cores);
  return [microKernelStructure("none", maxJobs), microKernelStructure("none", maxJobs, "other"), microKernelStructure("all", maxJobs)];
}

/** The priors for a task: the gemm winners on a GPU, the micro-kernel structure on a CPU (the C target) of `ctx.numThreads` cores. */
export function priorsFor(ctx: Pick<TuneContext, "target" | "numThreads">): readonly Prior[] {
  return ctx.target.kind === "c" ? cpuMicroKernelPriors(ctx.numThreads) : GEMM_WINNERS_2048;
}

/** `values` moved onto `inst`, or undefined when their kinds differ. */
function decisionFor(inst: Instruction, value: DecisionValue): Decision | undefined {
  if (inst.kind.name === "SampleCategorical") return typeof value === "number" ? nearestIndex(inst.attrs[0] as readonly number[], value) : undefined;
  return Array.isArray(value) && value.length === inst.attrs[0] ? value : undefined;
}

/** The design space `space` with the sampling decisions `values`, or undefined when its sampling steps do not match them. */
export function withDecisionValues(space: Trace, values: readonly DecisionValue[]): Trace | undefined {
  let out = space.simplified({ removePostproc: true });
  const sampling = instructionsBeforePostproc(out).filter(isSampling);
  if (sampling.length !== values.length) return undefined;
  for (const [k, inst] of sampling.entries()) {
    const decision = decisionFor(inst, values[k]!);
    if (decision === undefined) return undefined;
    out = out.withDecision(inst, decision);
  }
  return out;
}

/** The design space `space` with the decisions of `rule` (the space's own where the rule gives none). */
export function withDecisionRule(space: Trace, rule: DecisionRule): Trace {
  let out = space.simplified({ removePostproc: true });
  const insts = instructionsBeforePostproc(out);
  const feeds = annotationKeysOf(insts);
  const tiles = insts.filter((i) => i.kind.name === "SamplePerfectTile");
  const earlierTiles: (readonly number[])[] = [];
  for (const inst of insts.filter(isRuled)) {
    const current = out.getDecision(inst);
    if (current === undefined) continue;
    const decision = rule.decide({ inst, current, feeds: feeds.get(inst.outputs[0]), tileIndex: tiles.indexOf(inst), earlierTiles });
    if (decision !== undefined) out = out.withDecision(inst, decision);
    const given = decision ?? current;
    if (inst.kind.name === "SamplePerfectTile" && Array.isArray(given)) earlierTiles.push(given as readonly number[]);
  }
  return out;
}

let sourceHash: string | undefined;

/** Whether `workload` is the one the priors were measured on (seeding it with them would only replay the table). */
export function isPriorSource(workload: Workload): boolean {
  sourceHash ??= workloadOf(gemmReluAdd(2048).func).hash;
  return workload.hash === sourceHash;
}

/** Whether two seeds are one program: the same instructions with the same decisions. */
function sameDecisions(a: Trace, b: Trace): boolean {
  return JSON.stringify(a.toJSON()) === JSON.stringify(b.toJSON());
}

/**
 * Up to `count` seeds, in the priors' order (a rule's repeat of an earlier seed left out): a table of values moved onto the first design space it
 * matches, a rule applied to every design space. The workload the gemm winners came from gets no
 * tables (seeding it with them would only replay them).
 */
export function seedsFromPriors(workload: Workload, designSpaces: readonly Trace[], count: number, priors: readonly Prior[] = GEMM_WINNERS_2048): Trace[] {
  const out: Trace[] = [];
  const source = isPriorSource(workload);
  for (const prior of priors) {
    if (out.length >= count) break;
    if (isRule(prior)) {
      for (const space of designSpaces) {
        if (out.length >= count) break;
        const seed = withDecisionRule(space, prior);
        if (!out.some((t) => sameDecisions(t, seed))) out.push(seed);
      }
      continue;
    }
    if (source) continue;
    for (const space of designSpaces) {
      const trace = withDecisionValues(space, prior);
      if (trace === undefined) continue;
      out.push(trace);
      break;
    }
  }
  return out;
}
