/**
 * compute-inline and reverse-compute-inline (TVM's `primitive/compute_inline.cc`).
 *
 * computeInline(B): B's value `B[f(v)] = g(v)` replaces every load of B in the scope; B's block
 * and allocation disappear. reverseComputeInline(C): C's store `C[...] = h(A[f(v)])` replaces the
 * store of A in A's single producer, which then writes C directly.
 */
import type { Block, Buffer, Stmt } from "@tessera/ir";
import { ScheduleError } from "../../errors.js";
import { registerInstruction, renderInput } from "../../instruction.js";
import type { PrimitiveContext } from "../../context.js";
import { checkCompleteBlock, checkNotOutputBlock, nameOf, scopeRootOf } from "../../analysis/schedule-checks.js";
import { planLeafBlockRemoval } from "../../analysis/leaf-block-removal.js";
import type { BlockScope } from "../../analysis/scope.js";
import type { BlockEntry } from "../../state/tree-index.js";
import { replaceStmts } from "../../state/replace.js";
import { ComputeInliner, ReverseComputeInliner } from "./rewrite.js";
import { analyzeInlinedStore, analyzeReverseInline, leafWriters } from "./analysis.js";

export class HasInitBlock extends ScheduleError {
  override name = "HasInitBlock";
  constructor(primitive: string, blk: Block) {
    super(primitive, `ScheduleError: The block has init statement: ${nameOf(blk)}`, [blk]);
  }
}

export class NotSingleReadWriteBuffer extends ScheduleError {
  override name = "NotSingleReadWriteBuffer";
  constructor(primitive: string, isRead: boolean, blk: Block) {
    const count = isRead ? blk.reads.length : blk.writes.length;
    const verb = isRead ? "read" : "write";
    super(primitive, `The block is only allowed to ${verb} a single buffer region, but it ${verb}s ${count} region(s): ${nameOf(blk)}`, [blk]);
  }
}

const BODY_INLINE = `The body of the inlined block should be in form of
    'A[f(i, j, k, ...)] = g(i, j, k, ...)',
where the store indices mapping f on the left are bijective affine.`;

const BODY_REVERSE_INLINE = `The body of the inlined block should be in form of
    \`B[...] = g(i, j, k, A[f(i, j, k, ...)] ...)\`,
where A is the only buffer the block consumes, whose indices are distinct atomic variables,
and there should be no variables other than the index variables), and f is a bijective affine
mapping and there should not be predicates in the inlined block. The iter domains of the inlined
block should be covered by the producer block.`;

export class BodyAnalysisError extends ScheduleError {
  override name = "BodyAnalysisError";
  constructor(primitive: string, isReverse: boolean, blk: Block) {
    super(primitive, isReverse ? BODY_REVERSE_INLINE : BODY_INLINE, [blk]);
  }
}

export class NonSingleProducerError extends ScheduleError {
  override name = "NonSingleProducerError";
  constructor(primitive: string, blk: Block) {
    super(
      primitive,
      `The consumer block ${nameOf(blk)} to be inlined is required to have only a single producer block, and the producer block should be a complete block who has only a single consumer`,
      [blk],
    );
  }
}

export class OpaqueAccessError extends ScheduleError {
  override name = "OpaqueAccessError";
  constructor(primitive: string, scopeRoot: Block | undefined) {
    super(
      primitive,
      `The buffer to be inlined has opaque access (e.g. \`B.data\`), or its subregion is matched into other blocks: ${scopeRoot ? nameOf(scopeRoot) : "the function body"}`,
      scopeRoot ? [scopeRoot] : [],
    );
  }
}

const INLINE = "compute-inline";
const REVERSE_INLINE = "reverse-compute-inline";

function computeInline(ctx: PrimitiveContext, producer: BlockEntry): void {
  const block = producer.node;
  if (block.init !== undefined) throw new HasInitBlock(INLINE, block);
  if (block.writes.length !== 1) throw new NotSingleReadWriteBuffer(INLINE, false, block);
  const inlined = block.writes[0]!.buffer;
  const scope = scopeRootOf(ctx.index, producer, INLINE, true);
  checkNotOutputBlock(INLINE, scope, producer);
  checkCompleteBlock(INLINE, scope, producer);
  const pattern = analyzeInlinedStore(block);
  if (pattern === undefined) throw new BodyAnalysisError(INLINE, false, block);
  const removal = planLeafBlockRemoval(INLINE, producer);
  const inliner = new ComputeInliner(inlined, removal, scope.root?.node, block, pattern.indexVars, pattern.value);
  rewriteScope(ctx, scope, inliner);
}

function reverseComputeInline(ctx: PrimitiveContext, consumer: BlockEntry): void {
  const block = consumer.node;
  if (block.init !== undefined) throw new HasInitBlock(REVERSE_INLINE, block);
  const scope = scopeRootOf(ctx.index, consumer, REVERSE_INLINE, true);
  const inlined = singleProducedRead(scope, block);
  checkCompleteBlock(REVERSE_INLINE, scope, consumer);
  const { producers, incomplete } = leafWriters(ctx.index, scope, inlined);
  if (incomplete !== undefined) throw new NonSingleProducerError(REVERSE_INLINE, incomplete.node);
  const producer = producers[0];
  if (producer === undefined || producers.length !== 1) throw new NonSingleProducerError(REVERSE_INLINE, block);
  checkNotOutputBlock(REVERSE_INLINE, scope, producer);
  if (otherLeafReaders(ctx, scope, inlined, consumer).some((b) => b !== producer)) {
    // Stricter than TVM, which only checks the producer: the producer stops writing `inlined`,
    // so any other reader would read a buffer that nothing writes any more.
    throw new NonSingleProducerError(REVERSE_INLINE, block);
  }
  const info = analyzeReverseInline(consumer, producer.node, inlined);
  if (info === undefined) throw new BodyAnalysisError(REVERSE_INLINE, true, block);
  const removal = planLeafBlockRemoval(REVERSE_INLINE, consumer);
  rewriteScope(ctx, scope, new ReverseComputeInliner(inlined, removal, scope.root?.node, block, info));
}

/** Leaf blocks of the scope, other than `consumer` and the blocks inside it, that read `buffer`. */
function otherLeafReaders(ctx: PrimitiveContext, scope: BlockScope, buffer: Buffer, consumer: BlockEntry): BlockEntry[] {
  return ctx.index.blocks.filter(
    (b) =>
      b !== consumer &&
      (scope.root === undefined || ctx.index.isAncestor(scope.root, b)) &&
      !ctx.index.isAncestor(consumer, b) &&
      ctx.index.childBlocks(b).length === 0 &&
      b.node.reads.some((r) => r.buffer === buffer),
  );
}

/** The one buffer the block reads that some block of the scope writes. */
function singleProducedRead(scope: BlockScope, blk: Block): Buffer {
  let found: Buffer | undefined;
  for (const r of blk.reads) {
    if (r.buffer === found || !scope.writers.has(r.buffer)) continue;
    if (found !== undefined) throw new NotSingleReadWriteBuffer(REVERSE_INLINE, true, blk);
    found = r.buffer;
  }
  if (found === undefined) throw new NotSingleReadWriteBuffer(REVERSE_INLINE, true, blk);
  return found;
}

/** Runs the inliner over the scope root's subtree and commits the result. */
function rewriteScope(ctx: PrimitiveContext, scope: BlockScope, inliner: ComputeInliner | ReverseComputeInliner): void {
  const primitive = inliner instanceof ComputeInliner ? INLINE : REVERSE_INLINE;
  const body = ctx.func.body;
  let next: Stmt;
  if (scope.root === undefined) {
    next = inliner.visitStmt(body);
  } else {
    const realize = scope.root.realize;
    next = replaceStmts(body, new Map([[realize, inliner.visitStmt(realize)]]), undefined, ctx.index);
  }
  if (inliner.hasOpaqueAccess) throw new OpaqueAccessError(primitive, scope.root?.node);
  ctx.commit(next);
}

registerInstruction({
  name: "ComputeInline",
  method: "computeInline",
  pure: false,
  singleOutput: false,
  attrNames: [],
  apply(ctx, inputs) {
    computeInline(ctx, ctx.block(inputs[0], INLINE));
    return { outputs: [] };
  },
  formatArgs: (inputs) => renderInput(inputs[0]!),
});

registerInstruction({
  name: "ReverseComputeInline",
  method: "reverseComputeInline",
  pure: false,
  singleOutput: false,
  attrNames: [],
  apply(ctx, inputs) {
    reverseComputeInline(ctx, ctx.block(inputs[0], REVERSE_INLINE));
    return { outputs: [] };
  },
  formatArgs: (inputs) => renderInput(inputs[0]!),
});
