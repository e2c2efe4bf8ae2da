/**
 * Whether a loop nest of the tuned CPU program is worth a parallel region: the rule the d2l hand
 * schedules use (`worthParallel`, @tessera/schedule/machine), with this machine's probed region
 * cost. A nest whose estimated single-core time saves too little over the cores to pay for waking
 * the OpenMP team runs serially, so a small workload makes one region per call or none.
 */
import { type MachineProfile, type Work, estimatedMicros, machineProfile, parallelPayoffMargin, worthParallel } from "@tessera/schedule/machine";
import { type PrimExpr, bytesOf } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";

/** Decides from a nest's work and the cores whether the nest runs in parallel. */
export type ParallelPayoff = (work: Work, cores: number) => boolean;

/** The payoff rule on a given machine (default: this one, probed once and cached; @tessera/schedule/machine). */
export function parallelPayoffOn(machine: () => MachineProfile = machineProfile): ParallelPayoff {
  return (work, cores) => worthParallel(work, cores, machine());
}

/** How many times over a nest's work pays for a parallel region (the rule says parallel at 1 or more). */
export type ParallelMargin = (work: Work, cores: number) => number;

/** The payoff rule's margin on a given machine (default: this one). */
export function parallelMarginOn(machine: () => MachineProfile = machineProfile): ParallelMargin {
  return (work, cores) => parallelPayoffMargin(work, cores, machine());
}

/**
 * Within this factor of the payoff threshold (a margin from 1/4 to 4) the CPU space samples whether
 * the largest nest runs in a parallel region (PARALLEL_REGION) instead of trusting the rule: its
 * work estimate and the probed region cost are rough, and the measured programs decide.
 */
export const PARALLEL_SAMPLE_FACTOR = 4;

/** Whether a margin is near enough to the threshold for the space to sample the parallel structure. */
export function nearPayoffThreshold(margin: number): boolean {
  return margin > 0 && margin >= 1 / PARALLEL_SAMPLE_FACTOR && margin < PARALLEL_SAMPLE_FACTOR;
}

/** The blocks grouped by the outermost loop above them (one group per top-level loop nest). */
export function nestsOf(sch: Schedule, blocks: readonly BlockRV[]): BlockRV[][] {
  const nests = new Map<unknown, BlockRV[]>();
  for (const b of blocks) {
    const outer = sch.getLoops(b)[0];
    if (outer === undefined) continue;
    const key = sch.get(outer);
    const nest = nests.get(key);
    if (nest === undefined) nests.set(key, [b]);
    else nest.push(b);
  }
  return [...nests.values()];
}

/** The nest of `nests` with the most estimated work and that work; undefined where a nest's work is not constant. */
export function largestNest(sch: Schedule, nests: readonly (readonly BlockRV[])[]): { nest: readonly BlockRV[]; work: Work } | undefined {
  let best: { nest: readonly BlockRV[]; work: Work } | undefined;
  for (const nest of nests) {
    const work = nestWork(sch, nest);
    if (work === undefined) return undefined;
    if (best === undefined || estimatedMicros(work) > estimatedMicros(best.work)) best = { nest, work };
  }
  return best;
}

function constantProduct(exprs: readonly PrimExpr[]): number | undefined {
  let product = 1;
  for (const e of exprs) {
    if (e.kind !== "IntImm") return undefined;
    product *= e.value;
  }
  return product;
}

/**
 * The work of the blocks of one loop nest: flops = block instances (2 per instance of a reduction
 * block: a multiply-add), bytes = the sizes of the distinct buffers they read and write; undefined
 * where an extent or a shape is not constant (then the nest is parallelized as in TVM).
 */
export function nestWork(sch: Schedule, blocks: readonly BlockRV[]): Work | undefined {
  let flops = 0;
  const buffers = new Map<unknown, number>();
  for (const rv of blocks) {
    const block = sch.get(rv);
    const instances = constantProduct(sch.getLoops(rv).map((l) => sch.get(l).extent));
    if (instances === undefined) return undefined;
    const reduces = block.iterVars.some((iv) => iv.iterType === "reduce");
    flops += instances * (reduces ? 2 : 1);
    for (const region of [...block.reads, ...block.writes]) {
      const buf = region.buffer;
      if (buffers.has(buf.data)) continue;
      const elements = constantProduct(buf.shape);
      if (elements === undefined) return undefined;
      buffers.set(buf.data, bytesOf(buf.dtype) * elements);
    }
  }
  let bytes = 0;
  for (const b of buffers.values()) bytes += b;
  return { flops, bytes };
}
