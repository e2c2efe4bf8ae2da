/**
 * AddRFactor (TVM's `ScheduleRule::AddRFactor`, CPU): for a reduction block with too little
 * spatial parallelism, its fused reduce loop is split by a sampled perfect tile into two, and
 * each of the two is factored out with `rfactor` (one design space each, the rfactor block marked
 * so that RandomComputeLocation places it), followed by the input unchanged.
 */
import os from "node:os";
import { TesseraError } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";
import { checkPositiveInts } from "../schedule-utils/options.js";
import { needsCrossThreadReduction, reorderAndFuseReductionLoops } from "./cross-thread-reduction.js";
import type { ScheduleRule } from "../interfaces/schedule-rule.js";

/** Marks a block whose producer (its rfactor block) RandomComputeLocation should place too. */
export const RANDOM_COMPUTE_PRODUCER_KEY = "meta_schedule.random_compute_producer";

export interface AddRFactorOptions {
  /** TVM: 16 for LLVM targets. */
  readonly maxJobsPerCore?: number;
  /** TVM: 64 for LLVM targets. */
  readonly maxInnermostFactor?: number;
  /** Cores of the machine the code will run on (this machine's by default). */
  readonly numCores?: number;
}

export function addRFactor(opts: AddRFactorOptions = {}): ScheduleRule {
  const maxJobsPerCore = opts.maxJobsPerCore ?? 16;
  const maxInnermostFactor = opts.maxInnermostFactor ?? 64;
  const numCores = opts.numCores ?? os.availableParallelism();
  checkPositiveInts("addRFactor", "maxJobsPerCore", [maxJobsPerCore]);
  checkPositiveInts("addRFactor", "maxInnermostFactor", [maxInnermostFactor]);
  checkPositiveInts("addRFactor", "numCores", [numCores]);
  return {
    name: "addRFactor",
    apply(sch: Schedule, block: BlockRV): Schedule[] {
      if (!needsCrossThreadReduction(sch, block, maxJobsPerCore * numCores, numCores)) return [sch];
      const original = sch.copy();
      original.seed(sch.forkSeed());
      const work = sch.copy();
      const { fused, spatialLoops } = reorderAndFuseReductionLoops(work, block);
      const factors = work.samplePerfectTile(fused, 2, maxInnermostFactor);
      const pieces = work.split(fused, factors);
      const results: Schedule[] = [];
      for (const piece of pieces) {
        const variant = work.copy();
        variant.seed(work.forkSeed());
        try {
          variant.rfactor(piece, spatialLoops);
        } catch (err) {
          // A piece rfactor refuses gives no design space (TVM drops it too).
          if (err instanceof TesseraError) continue;
          throw err;
        }
        variant.annotate(block, RANDOM_COMPUTE_PRODUCER_KEY, 1);
        results.push(variant);
      }
      return [...results, original];
    },
  };
}
