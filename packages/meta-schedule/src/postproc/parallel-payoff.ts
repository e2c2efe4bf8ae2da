/**
 * Whether a loop nest of the tuned CPU program is worth a parallel region: the rule the d2l hand
 * schedules use (`worthParallel`, @tessera/schedule/machine), with this machine's probed region
 * cost. A nest whose estimated single-core time saves too little over the cores to pay for waking
 * the OpenMP team runs serially, so a small workload makes one region per call or none.
 */
import { type MachineProfile, type Work, machineProfile, worthParallel } from "@tessera/schedule/machine";
import { type PrimExpr, bytesOf } from "@tessera/ir";
import type { BlockRV, Schedule } from "@tessera/schedule";

/** Decides from a nest's work and the cores whether the nest runs in parallel. */
export type ParallelPayoff = (work: Work, cores: number) => boolean;

/** The payoff rule on a given machine (default: this one, probed once and cached; @tessera/schedule/machine). */
export function parallelPayoffOn(machine: () => MachineProfile = machineProfile): ParallelPayoff {
  return (work, cores) => worthParallel(work, cores, machine());
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
