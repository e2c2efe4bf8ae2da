/**
 * Padded tiles without guards in their inner loops (TVM reaches the same end with PadEinsum and
 * LoopPartition). A tile that the extent does not divide gets block predicates `v < extent`; on
 * the blocks that only move values into thread-local and shared buffers (the fetches, the
 * register tile's FMAs, its initialisation) such a guard costs a comparison per instruction in
 * the innermost reduction loop and buys nothing: run out of its domain, the block writes only
 * elements past the end of the dimension that `v` indexes — padding, which no execution inside
 * the domain reads. A fetch from global memory keeps its guard on the load and stores zero into
 * the padding instead (`if_then_else(v < extent, A[…], 0)`), so the padded tile computes on
 * zeros; the stores to global memory keep their guards, so the padding never reaches a result.
 *
 * Two passes around compaction, because the proof needs block iterators and the buffers' final
 * extents:
 * - `markPaddingGuards` (before convertBlocksToOpaque) records on each such block which conjuncts
 *   of its predicate are padding guards: `binding(v) < extent(v)` for a data-parallel iterator `v`
 *   of domain [0, extent), that every store of the block indexes directly in a dimension of that
 *   extent, in a block whose body only stores into `local`/`shared` buffers values loaded from
 *   them, or is one such store of a value loaded from elsewhere (a fetch);
 * - `dropPaddingGuards` (after compactBufferAllocation) removes them where every on-chip access
 *   of the block provably stays inside its compacted buffer without them (else the block keeps
 *   them), moving a fetch's into its stored value.
 */
import {
  Analyzer,
  type AttrValue,
  type Block,
  type BlockRealize,
  type Buffer,
  type For,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  and,
  boolImm,
  floatImm,
  forEachExpr,
  forEachStmt,
  ifThenElse,
  intImm,
  storageRankOf,
  withBody,
} from "@tessera/ir";
import type { Pass } from "../pass.js";
import { conjuncts, isConstTrue } from "../util/conditions.js";
import { equalByEnumeration, indexInBoundsByEnumeration } from "../util/enumerated-bound.js";
import { LoopContextVisitor } from "../util/loop-context.js";

/**
 * Block annotation: how the guards go ("drop", or "fill" for a fetch), the predicate's conjunct
 * count, then per padding guard its index (in `conjuncts` order) and extent; dropPaddingGuards
 * changes nothing when they no longer match the predicate.
 */
export const PADDING_GUARDS_ANNOTATION = "tessera.padding_guards";

type GuardUse = "drop" | "fill";

type Store = Extract<Stmt, { kind: "BufferStore" }>;

const ON_CHIP_RANKS: ReadonlySet<string> = new Set(["local", "shared"]);

function isOnChip(buffer: Buffer): boolean {
  return ON_CHIP_RANKS.has(storageRankOf(buffer.scope) ?? "");
}

/** The block's stores and how its guards may go, or undefined when they must stay (see the module comment). */
function storesOf(blk: Block): { stores: Store[]; use: GuardUse } | undefined {
  const stores: Store[] = [];
  let plain = true;
  forEachStmt(blk.body, (s) => {
    if (s.kind === "BufferStore") stores.push(s);
    else if (s.kind !== "SeqStmt" && s.kind !== "IfThenElse") plain = false;
  });
  if (!plain || stores.length === 0 || !stores.every((st) => isOnChip(st.buffer))) return undefined;
  let offChipLoads = false;
  let calls = false;
  forEachExpr(blk.body, (e) => {
    if (e.kind === "BufferLoad" && !isOnChip(e.buffer)) offChipLoads = true;
    if (e.kind === "Call") calls = true;
  });
  if (calls) return undefined;
  if (!offChipLoads) return { stores, use: "drop" };
  return blk.body.kind === "BufferStore" ? { stores, use: "fill" } : undefined;
}

/** Whether a conjunct has the shape of a padding guard: `… < extent` where some data-parallel iterator of the block spans [0, extent). */
function looksLikePaddingGuard(c: PrimExpr, blk: Block): boolean {
  if (c.kind !== "Binary" || c.op !== "lt" || c.b.kind !== "IntImm") return false;
  const extent = c.b.value;
  return blk.iterVars.some((iv) => iv.iterType === "spatial" && iv.dom.extent.kind === "IntImm" && iv.dom.extent.value === extent);
}

/**
 * Index and extent of each conjunct of `s`'s predicate that guards only padding (flattened), and
 * how they may go; "keep" for a block that writes on-chip memory under what looks like a padding
 * guard it must keep (the padding it leaves unwritten must not be read unguarded).
 */
function paddingGuardsOf(s: BlockRealize, analyzer: Analyzer, loops: readonly For[]): { guards: number[]; use: GuardUse | "keep" } | undefined {
  if (isConstTrue(s.predicate)) return undefined;
  const parts = conjuncts(s.predicate);
  const body = storesOf(s.block);
  if (body === undefined) {
    let writesOnChip = false;
    forEachStmt(s.block.body, (st) => {
      if (st.kind === "BufferStore" && isOnChip(st.buffer)) writesOnChip = true;
    });
    return writesOnChip && parts.some((c) => looksLikePaddingGuard(c, s.block)) ? { guards: [], use: "keep" } : undefined;
  }
  const guards: number[] = [];
  // A guard and its iterator's binding may agree only where the conjuncts that stay hold
  // (`(f * 88 + t) % 32` is `f * 88 + t` under `f * 88 + t < 32`): those that no iterator's
  // extent bounds can never be dropped, so they may serve as facts.
  const facts = parts.filter((c) => !looksLikePaddingGuard(c, s.block));
  const exits = facts.map((c) => analyzer.enterConstraint(c));
  parts.forEach((c, index) => {
    if (c.kind !== "Binary" || c.op !== "lt" || c.b.kind !== "IntImm") return;
    const extent = c.b.value;
    const guarded = s.block.iterVars.findIndex(
      (iv, k) =>
        iv.iterType === "spatial" &&
        iv.dom.min.kind === "IntImm" &&
        iv.dom.min.value === 0 &&
        iv.dom.extent.kind === "IntImm" &&
        iv.dom.extent.value === extent &&
        (analyzer.canProveEqual(c.a, s.iterValues[k]!) || equalByEnumeration(c.a, s.iterValues[k]!, loops, facts)),
    );
    if (guarded < 0) return;
    const v = s.block.iterVars[guarded]!.var;
    const padsEveryStore = body.stores.every((st) =>
      st.indices.some((index, d) => index === v && st.buffer.shape[d]?.kind === "IntImm" && st.buffer.shape[d].value === extent),
    );
    if (padsEveryStore) guards.push(index, extent);
  });
  for (const exit of exits.reverse()) exit();
  const padded = parts.some((c) => looksLikePaddingGuard(c, s.block));
  if (guards.length === 0) return padded ? { guards: [], use: "keep" } : undefined;
  // Guards that look like padding but are not proven so stay; then so does the padding they leave unwritten.
  const unproven = parts.some((c, k) => looksLikePaddingGuard(c, s.block) && !guards.some((g, i) => i % 2 === 0 && g === k));
  return { guards, use: unproven ? "keep" : body.use };
}

/** A loop's range for the analyzer; a loop of one iteration is its minimum (`(x0 * 176 + x1) % 32` on x0 ∈ [0, 1) is not folded otherwise). */
function bindLoop(analyzer: Analyzer, loop: For): void {
  const single = loop.extent.kind === "IntImm" && loop.extent.value === 1;
  analyzer.bind(loop.loopVar, single ? loop.min : { min: loop.min, extent: loop.extent }, true);
}

class PaddingGuardMarker extends IRMutator {
  /** Knows the enclosing loops' ranges: a guard and its iterator's binding often agree only within them (`f % 176` is `f`). */
  private readonly analyzer = new Analyzer();

  private readonly loops: For[] = [];

  override visitFor(s: For): Stmt {
    bindLoop(this.analyzer, s);
    this.loops.push(s);
    const out = super.visitFor(s);
    this.loops.pop();
    return out;
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const visited = super.visitBlockRealize(s) as BlockRealize;
    const found = paddingGuardsOf(s, this.analyzer, this.loops);
    if (found === undefined) return visited;
    const value = [found.use, conjuncts(s.predicate).length, ...found.guards];
    return { ...visited, block: { ...visited.block, annotations: { ...visited.block.annotations, [PADDING_GUARDS_ANNOTATION]: value } } };
  }
}

/** Records padding guards on the blocks that may drop them. Runs while blocks still have iterators. */
export function markPaddingGuards(func: PrimFunc): PrimFunc {
  if (!someBlock(func.body, (s) => !isConstTrue(s.predicate))) return func;
  const body = new PaddingGuardMarker().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

/** Whether a block carries the annotation (whatever became of its predicate since). */
function isMarked(blk: Block): boolean {
  return blk.annotations[PADDING_GUARDS_ANNOTATION] !== undefined;
}

interface MarkedGuards {
  readonly use: GuardUse;
  /** Indices of the padding guards among the predicate's conjuncts. */
  readonly indices: ReadonlySet<number>;
}

/** The marked guards, when the predicate still has the conjuncts that were marked. */
function markedGuards(blk: Block, predicate: PrimExpr): MarkedGuards | undefined {
  const value = blk.annotations[PADDING_GUARDS_ANNOTATION];
  if (!Array.isArray(value)) return undefined;
  const [use, count, ...guards] = value as readonly AttrValue[];
  if ((use !== "drop" && use !== "fill") || !guards.every((x): x is number => typeof x === "number")) return undefined;
  const parts = conjuncts(predicate);
  if (parts.length !== count) return undefined;
  const indices = new Set<number>();
  for (let k = 0; k + 1 < guards.length; k += 2) {
    const c = parts[guards[k]!];
    if (c?.kind !== "Binary" || c.op !== "lt" || c.b.kind !== "IntImm" || c.b.value !== guards[k + 1]) return undefined;
    indices.add(guards[k]!);
  }
  return { use, indices };
}

function conjunction(parts: readonly PrimExpr[]): PrimExpr {
  return parts.length === 0 ? boolImm(true) : parts.reduce((a, b) => and(a, b));
}

/** Finds the marked blocks whose on-chip accesses stay inside their buffers without the padding guards. */
class UnguardedAccessProver extends LoopContextVisitor {
  readonly droppable = new Set<Block>();

  override visitBlockRealize(s: BlockRealize): void {
    const marked = markedGuards(s.block, s.predicate);
    if (marked !== undefined) {
      const kept = conjuncts(s.predicate).filter((_, k) => !marked.indices.has(k));
      if (this.onChipAccessesInBounds(s.block, kept)) this.droppable.add(s.block);
    }
    super.visitBlockRealize(s);
  }

  private onChipAccessesInBounds(blk: Block, kept: readonly PrimExpr[]): boolean {
    const analyzer = new Analyzer();
    for (const loop of this.loops) bindLoop(analyzer, loop);
    for (const c of [...this.conditions, ...kept]) analyzer.enterConstraint(c);
    const conditions = [...this.conditions, ...kept];
    const indexInBounds = (index: PrimExpr, extent: PrimExpr): boolean =>
      (analyzer.canProveGreaterEqual(index, 0) && analyzer.canProveLess(index, extent)) ||
      (extent.kind === "IntImm" && indexInBoundsByEnumeration(index, extent.value, this.loops, conditions));
    const inBounds = (buffer: Buffer, indices: readonly PrimExpr[]): boolean =>
      !isOnChip(buffer) || indices.every((index, d) => indexInBounds(index, buffer.shape[d]!));
    let ok = true;
    forEachStmt(blk.body, (st) => {
      if (st.kind === "BufferStore" && !inBounds(st.buffer, st.indices)) ok = false;
    });
    forEachExpr(blk.body, (e) => {
      if (e.kind === "BufferLoad" && !inBounds(e.buffer, e.indices)) ok = false;
    });
    return ok;
  }
}

class PaddingGuardDropper extends IRMutator {
  constructor(private readonly droppable: ReadonlySet<Block>) {
    super();
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const visited = super.visitBlockRealize(s) as BlockRealize;
    if (!isMarked(s.block)) return visited;
    const { [PADDING_GUARDS_ANNOTATION]: _, ...annotations } = visited.block.annotations;
    const marked = this.droppable.has(s.block) ? markedGuards(s.block, visited.predicate) : undefined;
    if (marked === undefined) return { ...visited, block: { ...visited.block, annotations } };
    const parts = conjuncts(visited.predicate);
    let body = visited.block.body;
    if (marked.use === "fill" && body.kind === "BufferStore") {
      const guards = conjunction(parts.filter((_, k) => marked.indices.has(k)));
      const zero = body.value.dtype.startsWith("float") ? floatImm(0, body.value.dtype) : intImm(0, body.value.dtype);
      body = { ...body, value: ifThenElse(guards, body.value, zero) };
    }
    const predicate = conjunction(parts.filter((_, k) => !marked.indices.has(k)));
    return { ...visited, predicate, block: { ...visited.block, body, annotations } };
  }
}

function someBlock(body: Stmt, test: (s: BlockRealize) => boolean): boolean {
  let found = false;
  forEachStmt(body, (s) => {
    if (!found && s.kind === "BlockRealize" && test(s)) found = true;
  });
  return found;
}

/** Drops the marked padding guards whose blocks provably stay inside their compacted buffers. */
export function dropPaddingGuards(func: PrimFunc): PrimFunc {
  if (!someBlock(func.body, (s) => isMarked(s.block))) return func;
  const prover = new UnguardedAccessProver();
  prover.visitStmt(func.body);
  return withBody(func, new PaddingGuardDropper(withoutUnwrittenPadding(func.body, prover.droppable)).visitStmt(func.body));
}

/**
 * The droppable blocks less those that would read shared padding that a guarded block leaves
 * unwritten (harmless, since such values only reach padding, but a read of undefined memory):
 * a shared buffer written by a marked block that keeps its guards is read only under guards.
 */
function withoutUnwrittenPadding(body: Stmt, droppable: ReadonlySet<Block>): Set<Block> {
  const marked: Block[] = [];
  forEachStmt(body, (s) => {
    if (s.kind === "BlockRealize" && isMarked(s.block)) marked.push(s.block);
  });
  const kept = new Set(droppable);
  const unwritten = new Set<Buffer["data"]>();
  const noteSharedStores = (blk: Block): void =>
    forEachStmt(blk.body, (st) => {
      if (st.kind === "BufferStore" && storageRankOf(st.buffer.scope) === "shared") unwritten.add(st.buffer.data);
    });
  for (const blk of marked) if (!kept.has(blk)) noteSharedStores(blk);
  for (let changed = true; changed; ) {
    changed = false;
    for (const blk of kept) {
      let readsUnwritten = false;
      forEachExpr(blk.body, (e) => {
        if (e.kind === "BufferLoad" && unwritten.has(e.buffer.data)) readsUnwritten = true;
      });
      if (!readsUnwritten) continue;
      kept.delete(blk);
      noteSharedStores(blk);
      changed = true;
    }
  }
  return kept;
}

export const markPaddingGuardsPass: Pass = { name: "markPaddingGuards", run: (func) => markPaddingGuards(func) };
export const dropPaddingGuardsPass: Pass = { name: "dropPaddingGuards", run: (func) => dropPaddingGuards(func) };
