/**
 * Pass 2, `planBufferAllocation` (TVM PlanAndUpdateBufferAllocationLocation): every buffer a block
 * allocates moves to the lowest loop or block that covers all its accesses. A loop gets a new
 * opaque block around its body to hold the allocation.
 *
 * Placement constraints, by storage scope:
 * - `global` intermediates stay at the root block on a GPU: they become host workspaces and must
 *   not be allocated once per GPU thread or thread block. Where all code runs on the host (the C
 *   target, `onHost`), they go to the lowest common ancestor like `local` ones, as in TVM: the write
 *   cache of a CPU MultiLevelTiling tile then becomes a small array in the tile's loop, which the C
 *   compiler keeps in registers, instead of a whole matrix re-read from memory at every step.
 * - `shared` buffers go to the lowest common ancestor too, also when that is inside `threadIdx`
 *   loops (MetaSchedule's tiles fetch at the k loop under the compute's thread loops): the buffer
 *   still belongs to the thread block, and compactBufferAllocation relaxes it over those threads.
 * - `local` buffers go to the lowest common ancestor (each thread has its own).
 * A buffer written by a reduction is also kept outside the reduction's outermost loop: an
 * accumulator whose reduction spans an enclosing loop (`k_0` around the threadIdx loops of a tiled
 * matmul) must live across that loop's iterations, not be allocated afresh in each.
 *
 * As in TVM, the opaque block made to hold allocations under a loop gets the read and write
 * regions of its body, and every block's regions drop the buffers it now allocates itself or
 * below (they are no longer accessed from outside it).
 */
import {
  type Block,
  type Buffer,
  type BufferRegion,
  type For,
  IRMutator,
  type PrimFunc,
  type Stmt,
  type Var,
  block,
  blockRealize,
  inferAccessRegions,
  paramBuffers,
  withBody,
} from "@tessera/ir";
import type { Pass } from "../pass.js";
import { type AccessTree, type ScopeNode, collectAccessTree, lowestCommonAncestor } from "../util/scope-tree.js";

function rootOf(node: ScopeNode): ScopeNode {
  let r = node;
  while (r.parent !== undefined) r = r.parent;
  return r;
}

/** Where `buffer` should be allocated. */
function placementOf(buffer: Buffer, tree: AccessTree, onHost: boolean): ScopeNode {
  const allocator = tree.allocator.get(buffer)!;
  const uses = tree.accesses.get(buffer) ?? [];
  if (uses.length === 0) return allocator;
  if (buffer.scope === "global" && !onHost) return rootOf(allocator).stmt.kind === "Block" ? rootOf(allocator) : allocator;
  let lca: ScopeNode | undefined = uses[0]!;
  for (const u of uses.slice(1)) lca = lca === undefined ? undefined : lowestCommonAncestor(lca, u);
  if (lca === undefined) return allocator;
  for (const loop of tree.reductionLoops.get(buffer) ?? []) {
    const outside = loop.parent;
    lca = outside === undefined ? undefined : lowestCommonAncestor(lca, outside);
    if (lca === undefined) return rootOf(allocator);
  }
  return lca;
}

class AllocationMover extends IRMutator {
  /** Buffers visible where the mutator is: parameters and those allocated by enclosing scopes. */
  private readonly inScope = new Set<Buffer>();
  private readonly byData = new Map<Var, Buffer>();

  constructor(
    /** Buffers to allocate at each loop or block (original nodes), in their original order. */
    private readonly placed: ReadonlyMap<For | Block, readonly Buffer[]>,
    private readonly moved: ReadonlySet<Buffer>,
    params: readonly Buffer[],
    private readonly blockRegions: boolean,
  ) {
    super();
    for (const b of params) this.enter(b);
  }

  private enter(b: Buffer): void {
    this.inScope.add(b);
    this.byData.set(b.data, b);
  }

  private within<T>(buffers: readonly Buffer[], visit: () => T): T {
    const added = buffers.filter((b) => !this.inScope.has(b));
    for (const b of added) this.enter(b);
    try {
      return visit();
    } finally {
      for (const b of added) this.inScope.delete(b);
    }
  }

  override visitFor(s: For): Stmt {
    const here = this.placed.get(s) ?? [];
    const visited = this.within(here, () => super.visitFor(s) as For);
    if (here.length === 0) return visited;
    const holder = block({ name: "", body: visited.body, allocBuffers: here });
    if (!this.blockRegions) return { ...visited, body: blockRealize([], true, holder) };
    const regions = inferAccessRegions(holder, { bufferOfData: (v) => this.opaquelyAccessible(v) });
    return { ...visited, body: blockRealize([], true, { ...holder, reads: regions.reads, writes: regions.writes }) };
  }

  private opaquelyAccessible(data: Var): Buffer | undefined {
    const b = this.byData.get(data);
    return b !== undefined && this.inScope.has(b) ? b : undefined;
  }

  override visitBlock(b: Block): Block {
    const here = this.placed.get(b) ?? [];
    const matched = b.matchBuffers.map((m) => m.buffer);
    const visited = this.within([...here, ...matched], () => super.visitBlock(b));
    const kept = visited.allocBuffers.filter((x) => !this.moved.has(x));
    const visible = (r: BufferRegion): boolean => !this.moved.has(r.buffer) || this.inScope.has(r.buffer);
    const reads = visited.reads.filter(visible);
    const writes = visited.writes.filter(visible);
    const regionsKept = reads.length === visited.reads.length && writes.length === visited.writes.length;
    if (here.length === 0 && kept.length === visited.allocBuffers.length && regionsKept) return visited;
    return { ...visited, allocBuffers: [...kept, ...here], reads, writes };
  }
}

export interface PlanBufferAllocationOptions {
  /** All code runs on the host (the C target): global intermediates are placed like local ones. */
  readonly onHost?: boolean;
  /**
   * Give holder blocks the regions of their body, as TVM does (default true). The pipeline turns
   * it off: no later pass of ours reads those regions, and inferring them costs about a tenth of
   * the lowering time of a tiled GEMM.
   */
  readonly blockRegions?: boolean;
}

export function planBufferAllocation(func: PrimFunc, opts: PlanBufferAllocationOptions = {}): PrimFunc {
  const tree = collectAccessTree(func.body);
  const placed = new Map<For | Block, Buffer[]>();
  for (const buffer of tree.allocator.keys()) {
    const at = placementOf(buffer, tree, opts.onHost === true).stmt;
    const list = placed.get(at) ?? [];
    list.push(buffer);
    placed.set(at, list);
  }
  const body = new AllocationMover(placed, new Set(tree.allocator.keys()), paramBuffers(func), opts.blockRegions !== false).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const planBufferAllocationPass: Pass = {
  name: "planBufferAllocation",
  run: (func, ctx) => planBufferAllocation(func, { onHost: ctx.target.kind === "c", blockRegions: false }),
};
