/**
 * Test support: a minimal post-order application of schedule rules (what PostOrderApply does, for
 * these tests only), the workloads, and the checks that a schedule computes what its workload does
 * (GPU: lowered and simulated; CPU: the sequential executor).
 */
import { lower, target } from "@tessera/codegen";
import { type PrimFunc, type TypedArray, add, compilePrimFunc, max, mul, randomArgs, sub, te } from "@tessera/ir";
import { type BlockRV, Schedule } from "@tessera/schedule";
import { compareWithReference } from "@tessera/simulator";
import { expect } from "vitest";
import { blockNamesPostOrder } from "../../src/rules/multi-level-tiling/block-query.js";
import type { ScheduleRule } from "../../src/interfaces/schedule-rule.js";
import { type TuneContext, tuneContext } from "../../src/tune-context.js";
import { workloadOf } from "../../src/workload.js";

export const H100 = target("nvidia/h100");

export function contextOf(func: PrimFunc, seed = 1): TuneContext {
  return tuneContext(workloadOf(func), H100, { seed });
}

/** Applies each rule, in order, to every block (the last collected first), as TVM's PostOrderApply does. */
export function applyRules(ctx: TuneContext, rules: readonly ScheduleRule[], seed = 7): Schedule[] {
  const start = new Schedule(ctx.workload.func, { seed });
  const blocks = blockNamesPostOrder(start.func).map((name) => start.getBlock(name));
  let result = [start];
  for (const rule of rules) {
    const stack: { sch: Schedule; blocks: BlockRV[] }[] = result.map((sch) => ({ sch, blocks: [...blocks] }));
    result = [];
    while (stack.length > 0) {
      const { sch, blocks: rest } = stack.pop()!;
      const block = rest.at(-1);
      if (block === undefined) {
        result.push(sch);
        continue;
      }
      const remaining = rest.slice(0, -1);
      if (!exists(sch, block)) {
        stack.push({ sch, blocks: remaining });
        continue;
      }
      for (const out of rule.apply(sch, block, ctx)) stack.push({ sch: out, blocks: remaining });
    }
  }
  return result;
}

function exists(sch: Schedule, block: BlockRV): boolean {
  try {
    sch.get(block);
    return true;
  } catch {
    return false;
  }
}

/** Lowers for the H100 and runs in the simulator; the comparison with the sequential executor. */
export function simulateAgainstReference(sch: Schedule, original: PrimFunc, seed = 0) {
  return compareWithReference(lower(sch, H100), original, { seed, rtol: 1e-4, atol: 1e-4 });
}

/**
 * `sch` computes the executor's numbers and races only on global memory: the cross-thread
 * reduction's unfused variant accumulates into its output from several threads without atomics
 * (the known gap that keeps the rule out of the CUDA space); nothing else may race.
 */
export function expectSameNumbersRacingOnlyOnGlobalMemory(sch: Schedule, original: PrimFunc, seed: number): void {
  const report = simulateAgainstReference(sch, original, seed);
  expect(report.matches).toBe(true);
  expect(report.simulation.raceCount).toBe(report.simulation.raceCounts.global);
}

/** Runs `func` in the sequential executor on seeded random inputs; all arrays after the run. */
export function execute(func: PrimFunc, seed: number): TypedArray[] {
  const args = randomArgs(func, seed);
  compilePrimFunc(func).run(args);
  return args;
}

// ---- workloads --------------------------------------------------------------------------------

/** B[i] = Σ_k A[i, k]. */
export function rowSum(rows: number, cols: number): PrimFunc {
  const A = te.placeholder([rows, cols], "float32", "A");
  const k = te.reduceAxis([0, cols], "k");
  const B = te.compute([rows], (i) => te.sum(A.at(i, k), k), "B");
  return te.createPrimFunc([A, B], { name: "row_sum" });
}

/** M[i] = max_k A[i, k]; C[i, k] = A[i, k] − M[i] (the first half of a softmax). */
export function rowMaxShift(rows: number, cols: number): PrimFunc {
  const A = te.placeholder([rows, cols], "float32", "A");
  const k = te.reduceAxis([0, cols], "k");
  const M = te.compute([rows], (i) => te.max(A.at(i, k), k), "M");
  const C = te.compute([rows, cols], (i, j) => sub(A.at(i, j), M.at(i)), "C");
  return te.createPrimFunc([A, C], { name: "row_max_shift" });
}

/** B = A · 2; C = B + 1 (two elementwise blocks). */
export function elementwiseChain(shape: readonly number[]): PrimFunc {
  const A = te.placeholder(shape, "float32", "A");
  const B = te.compute(shape, (...ix) => mul(A.at(...ix), 2), "B");
  const C = te.compute(shape, (...ix) => add(B.at(...ix), 1), "C");
  return te.createPrimFunc([A, C], { name: "elementwise_chain" });
}

/** C[i, j] = Σ_k A[i, k] · B[k, j]. */
export function matmulFunc(n: number, m: number, l: number): PrimFunc {
  const A = te.placeholder([n, l], "float32", "A");
  const B = te.placeholder([l, m], "float32", "B");
  const k = te.reduceAxis([0, l], "k");
  const C = te.compute([n, m], (i, j) => te.sum(mul(A.at(i, k), B.at(k, j)), k), "C");
  return te.createPrimFunc([A, B, C], { name: "matmul" });
}

/** B[i] = Σ_{j,k} A[i, j, k] (two reduce loops). */
export function planeSum(rows: number, a: number, b: number): PrimFunc {
  const A = te.placeholder([rows, a, b], "float32", "A");
  const j = te.reduceAxis([0, a], "j");
  const k = te.reduceAxis([0, b], "k");
  const B = te.compute([rows], (i) => te.sum(A.at(i, j, k), [j, k]), "B");
  return te.createPrimFunc([A, B], { name: "plane_sum" });
}

/** The names of the trace's instructions. */
export function kinds(sch: Schedule): string[] {
  return sch.trace.instructions.map((i) => i.kind.name);
}

/** The thread tags of the script's bound loops, in order. */
export function threadTags(script: string): string[] {
  return [...script.matchAll(/thread="([^"]+)"/g)].map((m) => m[1]!);
}

/** C = A·B; D = max(C, 0) (a matmul with a ReLU epilogue). */
export function matmulRelu(n: number, m: number, l: number): PrimFunc {
  const A = te.placeholder([n, l], "float32", "A");
  const B = te.placeholder([l, m], "float32", "B");
  const k = te.reduceAxis([0, l], "k");
  const C = te.compute([n, m], (i, j) => te.sum(mul(A.at(i, k), B.at(k, j)), k), "C");
  const D = te.compute([n, m], (i, j) => max(C.at(i, j), 0), "D");
  return te.createPrimFunc([A, B, D], { name: "matmul_relu" });
}
