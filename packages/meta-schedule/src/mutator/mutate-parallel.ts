/**
 * MutateParallel (TVM's `Mutator::MutateParallel`): changes the extent in a root block's
 * `meta_schedule.parallel` annotation to one that parallelises a different number of outer loops
 * of some block. The plans come from the loop extents of the program the trace builds: for each
 * block of the root's scope, the running products of its outer data-parallel constant loops.
 */
import os from "node:os";
import { type BlockRealize, type For, type Stmt, type Var, forEachBlockRealize, usesVar } from "@tessera/ir";
import type { Instruction, RandomEngine, Trace } from "@tessera/schedule";
import { PARALLEL } from "../schedule-utils/annotations.js";
import type { TuneContext } from "../tune-context.js";
import type { Mutator } from "../interfaces/mutator.js";
import { replayVisiting } from "./replay-probe.js";
import { instructionsBeforePostproc, withReplacedInstruction } from "./trace-queries.js";

export interface MutateParallelOptions {
  /** TVM: 16 for LLVM targets. */
  readonly maxJobsPerCore?: number;
  /** Cores of the machine the code will run on (this machine's by default). */
  readonly numCores?: number;
}

export function mutateParallel(opts: MutateParallelOptions = {}): Mutator {
  const maxJobsPerCore = opts.maxJobsPerCore ?? 16;
  const numCores = opts.numCores ?? os.availableParallelism();
  for (const [name, v] of [
    ["maxJobsPerCore", maxJobsPerCore],
    ["numCores", numCores],
  ] as const) {
    if (!Number.isInteger(v) || v <= 0) throw new RangeError(`mutateParallel: ${name} must be a positive integer, got ${String(v)}`);
  }
  const limit = maxJobsPerCore * numCores;
  return {
    name: "mutateParallel",
    apply(trace: Trace, rng: RandomEngine, ctx: TuneContext): Trace | undefined {
      const inst = instructionsBeforePostproc(trace).find((i) => i.kind.name === "Annotate" && i.attrs[0] === PARALLEL && typeof i.inputs[1] === "number");
      if (inst === undefined) return undefined;
      const sch = replayVisiting(trace, ctx.workload.func, () => {});
      const prods = parallelExtentProducts(sch.func.body, limit);
      const plans = new Map<string, number>();
      for (const list of prods) {
        for (const extent of list) {
          const key = fusedLoopCounts(prods, extent).join(",");
          if (extent <= limit && !plans.has(key)) plans.set(key, extent);
        }
      }
      plans.delete(fusedLoopCounts(prods, inst.inputs[1] as number).join(","));
      if (plans.size === 0) return undefined;
      const keys = [...plans.keys()].sort();
      const extent = plans.get(keys[rng.int(0, keys.length)]!)!;
      const replacement: Instruction = { ...inst, inputs: [inst.inputs[0]!, extent] };
      return withReplacedInstruction(trace, inst, replacement);
    },
  };
}

/**
 * For each block directly in the root's scope, the running products of the extents of its outer
 * loops that are constant and not used by a non-spatial iterator, outermost first, up to `limit`.
 */
export function parallelExtentProducts(body: Stmt, limit: number): number[][] {
  const realizes: { realize: BlockRealize; loops: readonly For[] }[] = [];
  // The blocks of the root's scope: the root itself is walked into, the others are not.
  forEachBlockRealize(body, (realize, loops) => {
    if (realize === body) return true;
    realizes.push({ realize, loops });
    return false;
  });
  const nonSpatial = (v: Var) =>
    realizes.some(({ realize }) => realize.block.iterVars.some((iv, k) => iv.iterType !== "spatial" && usesVar(realize.iterValues[k]!, (u) => u === v)));
  const out: number[][] = [];
  for (const { loops } of realizes) {
    // The leading loops that can be parallelised (TVM walks upwards and restarts at each loop that
    // cannot, which leaves the same prefix).
    const usable: For[] = [];
    for (const loop of loops) {
      if (loop.extent.kind !== "IntImm" || nonSpatial(loop.loopVar)) break;
      usable.push(loop);
    }
    if (usable.length === 0) continue;
    const products: number[] = [];
    let product = 1;
    for (const loop of usable) {
      product *= (loop.extent as { value: number }).value;
      products.push(product);
      if (product >= limit) break;
    }
    out.push(products);
  }
  return out;
}

/** TVM's `GetNumFusedLoops`: per block, how many outer loops a parallel extent of `limit` fuses. */
export function fusedLoopCounts(prods: readonly (readonly number[])[], limit: number): number[] {
  return prods.map((list) => {
    let i = list.findIndex((p) => p > limit);
    if (i < 0) i = list.length;
    if (i > 0 && list[i - 1] === limit) i--;
    if (i !== list.length) i++;
    return i;
  });
}
