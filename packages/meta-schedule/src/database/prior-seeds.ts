/**
 * Seeds for a new GEMM-like task from configurations measured best elsewhere, for when the
 * database holds no similar workload (beyond TVM, whose search starts from random samples): the
 * 2048³ gemm+ReLU+add winners of the default CUDA space on an H200, stored by value and moved onto
 * the task's design space the way similar-records.ts moves a record (a categorical takes the
 * nearest candidate, tile factors are kept and replay repairs those that no longer divide).
 * Validation is the caller's replay. The 2048³ gemm+ReLU+add itself gets none: its benchmark
 * measures the search.
 */
import { gemmReluAdd } from "@tessera/ir";
import type { Decision, Instruction, Trace } from "@tessera/schedule";
import { instructionsBeforePostproc } from "../mutator/trace-queries.js";
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

let sourceHash: string | undefined;

/** Whether `workload` is the one the priors were measured on (seeding it with them would only replay the table). */
export function isPriorSource(workload: Workload): boolean {
  sourceHash ??= workloadOf(gemmReluAdd(2048).func).hash;
  return workload.hash === sourceHash;
}

/**
 * Up to `count` of the priors moved onto the first design space each matches, in the priors'
 * order; none for the workload they came from.
 */
export function seedsFromPriors(
  workload: Workload,
  designSpaces: readonly Trace[],
  count: number,
  priors: readonly (readonly DecisionValue[])[] = GEMM_WINNERS_2048,
): Trace[] {
  const out: Trace[] = [];
  if (isPriorSource(workload)) return out;
  for (const values of priors) {
    if (out.length >= count) break;
    for (const space of designSpaces) {
      const trace = withDecisionValues(space, values);
      if (trace === undefined) continue;
      out.push(trace);
      break;
    }
  }
  return out;
}
