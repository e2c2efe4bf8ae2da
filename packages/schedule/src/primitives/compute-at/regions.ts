/**
 * Provided and required regions (TVM's `CalculateProvidedRequiredRegions`). Provided: what one
 * instance of the moved block writes (compute-at) or reads (reverse), in block-iterator terms.
 * Required: what the consumers (producers) under the target loop read (write), with their bindings
 * substituted and relaxed over the loops between them and the target loop. For compute-at the
 * relaxation also covers thread-bound loops above when the buffer is shared by those threads.
 */
import {
  type Analyzer,
  type Buffer,
  type BufferRegion,
  type IntervalSet,
  type PrimExpr,
  type Var,
  add,
  evalSet,
  intervalFromRange,
  sub,
  substitute,
  canRelaxStorageUnderThread,
  isGlobalScope,
} from "@tessera/ir";
import type { BlockEntry, LoopEntry, NodeEntry } from "../../state/tree-index.js";

/** One interval per buffer dimension. */
export type NDIntSet = IntervalSet[];

export interface Regions {
  /** Buffer → the provided regions (in the moved block's iterators). Insertion-ordered. */
  readonly provided: Map<Buffer, NDIntSet[]>;
  /** Buffer → the required regions (in terms of the target loop and the loops above). */
  readonly required: Map<Buffer, NDIntSet[]>;
}

export function calculateRegions(isComputeAt: boolean, blk: BlockEntry, loop: LoopEntry, dependents: readonly BlockEntry[], analyzer: Analyzer): Regions {
  const provided = new Map<Buffer, NDIntSet[]>();
  const required = new Map<Buffer, NDIntSet[]>();
  for (const r of isComputeAt ? blk.node.writes : blk.node.reads) {
    const list = provided.get(r.buffer) ?? [];
    list.push(r.region.map((rg) => intervalFromRange(rg, analyzer)));
    provided.set(r.buffer, list);
    required.set(r.buffer, []);
  }
  for (const dep of dependents) {
    const binding = new Map<Var, PrimExpr>(dep.node.iterVars.map((iv, i) => [iv.var, dep.realize.iterValues[i]!]));
    for (const r of isComputeAt ? dep.node.reads : dep.node.writes) {
      const list = required.get(r.buffer);
      if (list === undefined) continue;
      const dom = relaxDomain(dep, loop, isComputeAt && !isGlobalScope(r.buffer.scope) ? r.buffer : undefined);
      list.push(relaxRegion(r, binding, dom, analyzer));
    }
  }
  return { provided, required };
}

/**
 * The loops to relax: those from `dep` up to (not including) `loop`, plus — when `shared` is a
 * non-global buffer — every thread-bound loop from `loop` upwards that its scope can relax over.
 */
function relaxDomain(dep: BlockEntry, loop: LoopEntry, shared: Buffer | undefined): Map<Var, IntervalSet> {
  const dom = new Map<Var, IntervalSet>();
  let p: NodeEntry | undefined = dep.parent;
  for (; p !== undefined && p !== loop && p.kind === "loop"; p = p.parent) {
    dom.set(p.node.loopVar, intervalFromRange({ min: p.node.min, extent: p.node.extent }));
  }
  if (shared === undefined) return dom;
  for (; p !== undefined; p = p.parent) {
    if (p.kind !== "loop" || p.node.forKind !== "thread_binding" || p.node.threadTag === undefined) continue;
    if (canRelaxStorageUnderThread(shared.scope, p.node.threadTag)) {
      dom.set(p.node.loopVar, intervalFromRange({ min: p.node.min, extent: p.node.extent }));
    }
  }
  return dom;
}

function relaxRegion(r: BufferRegion, binding: ReadonlyMap<Var, PrimExpr>, dom: ReadonlyMap<Var, IntervalSet>, analyzer: Analyzer): NDIntSet {
  return r.region.map((rg) => {
    const lo = substitute(rg.min, binding);
    const hi = analyzer.simplify(substitute(sub(add(rg.min, rg.extent), 1), binding));
    return { min: evalSet(lo, dom, analyzer).min, max: evalSet(hi, dom, analyzer).max };
  });
}
