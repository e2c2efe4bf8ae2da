/**
 * How messages name the size of an assignment's workload: the extents of its largest block
 * iteration domain at the graded size, `2048×2048×2048` for a matmul, `512×512` for a transpose.
 * Read from the workload itself, so that no message assumes a shape.
 */
import { type PrimFunc, constIntValue, forEachBlockRealize } from "@tessera/ir";
import type { AssignmentBinding } from "./assignment.js";

const labels = new WeakMap<Pick<AssignmentBinding, "workload">, Map<number, string>>();

/** `2048×2048×2048` for gemm at n = 2048; `n` itself where the workload has no block of constant extents. */
export function workloadSizeLabel(binding: Pick<AssignmentBinding, "workload">, n: number): string {
  let byN = labels.get(binding);
  if (byN === undefined) {
    byN = new Map();
    labels.set(binding, byN);
  }
  let label = byN.get(n);
  if (label === undefined) {
    label = largestDomain(binding.workload(n))?.join("×") ?? String(n);
    byN.set(n, label);
  }
  return label;
}

/** The constant extents of the block with the most iterators (the largest domain on a tie). */
function largestDomain(func: PrimFunc): number[] | undefined {
  let best: number[] | undefined;
  forEachBlockRealize(func.body, (realize) => {
    const extents = realize.block.iterVars.map((iv) => constIntValue(iv.dom.extent));
    if (extents.length === 0 || extents.some((e) => e === undefined)) return;
    const domain = extents as number[];
    if (best === undefined || domain.length > best.length || (domain.length === best.length && product(domain) > product(best))) best = domain;
  });
  return best;
}

function product(xs: readonly number[]): number {
  return xs.reduce((a, b) => a * b, 1);
}
