/**
 * cache_read / cache_write (TVM's `cache_read_write.cc`): stage a buffer through a new buffer
 * `<buf>_<scope>` in another storage scope, with a copy block of the same name.
 */
import { type Block, type Buffer, type BufferRegion, type PrimExpr, type StorageScope, fullRegion } from "@tessera/ir";
import { checkStorageScope, nthAccessRegion } from "../../analysis/buffer-access.js";
import { analyzerAt, domainsAround, firstUncoveredReader, nestedBlockPredicate, relaxRegion } from "../../analysis/region-relax.js";
import { BlockScope } from "../../analysis/scope.js";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError, ScheduleUsageError } from "../../errors.js";
import { type InstructionInput, type InstructionKind, type RenderedInput, registerInstruction, renderInput, tsLiteral } from "../../instruction.js";
import { replaceStmts } from "../../state/replace.js";
import type { BlockEntry } from "../../state/tree-index.js";
import { type CacheLocation, allReadersUnder, detectCacheLocation, ownerEntry } from "./location.js";
import { CacheReadRewriter, CacheWriteRewriter } from "./rewrite.js";
import { makeCacheBuffer, makeCacheStage } from "./stage.js";

const isTrue = (e: PrimExpr): boolean => e.kind === "IntImm" && e.value !== 0;

export { BufferIndexOutOfRangeError, InvalidStorageScopeError } from "../../analysis/buffer-access.js";

/** More than one block of the scope writes the buffer. */
export class NotSingleWriteBlock extends ScheduleError {
  override name = "NotSingleWriteBlock";
}

/** A block reading the buffer reads more than its producers provably write. */
export class NotRegionCoverError extends ScheduleError {
  override name = "NotRegionCoverError";
}

/** The block is the root block, which has no scope to place a cache stage in. */
export class CacheRootBlockError extends ScheduleError {
  override name = "CacheRootBlockError";
}

type Kind = "read" | "write";

interface Target {
  readonly blk: BlockEntry;
  readonly buffer: Buffer;
  readonly scope: BlockScope;
  readonly scopeEntry: BlockEntry;
  readonly storage: StorageScope;
  readonly consumers: ReadonlySet<Block>;
}

/** Resolves and checks the common inputs (TVM's steps 0-2). */
function resolveTarget(ctx: PrimitiveContext, kind: Kind, inputs: readonly InstructionInput[], attrs: readonly unknown[]): Target {
  const primitive = `cache-${kind}`;
  const blk = ctx.block(inputs[0], primitive);
  const storage = checkStorageScope(primitive, attrs[1]);
  const buffer = nthAccessRegion(primitive, blk.node, attrs[0], kind).buffer;
  const scopeEntry = ctx.index.scopeOf(blk);
  if (scopeEntry === undefined) {
    throw new CacheRootBlockError(primitive, "The primitive does not operate on the root block.", [blk.node]);
  }
  const given = inputs[1] ?? [];
  if (!Array.isArray(given)) throw new ScheduleUsageError(primitive, "consumer_blocks must be an array of block handles");
  const consumers = new Set<Block>();
  for (const rv of given as readonly InstructionInput[]) {
    const c = ctx.block(rv, primitive, "consumer_blocks");
    consumers.add(c.node);
    for (const nested of ctx.index.blocks) if (ctx.index.isAncestor(c, nested)) consumers.add(nested.node);
  }
  return { blk, buffer, scope: new BlockScope(ctx.index, scopeEntry), scopeEntry, storage, consumers };
}

/** The only writer of `buffer` in the scope (undefined when none), or NotSingleWriteBlock. */
function onlyWriter(t: Target, primitive: string): BlockEntry | undefined {
  const writers = t.scope.writers.get(t.buffer) ?? [];
  if (writers.length > 1) {
    throw new NotSingleWriteBlock(
      primitive,
      `The buffer ${t.buffer.name} is expected to be written by single block, but got ${writers.length} blocks who write it.`,
      writers.map((w) => w.node),
    );
  }
  return writers[0];
}

/** Builds the stage, rewrites the scope, commits, and returns the new block's handle. */
function applyCache(ctx: PrimitiveContext, t: Target, kind: Kind, loc: CacheLocation, region: BufferRegion, writer: BlockEntry | undefined) {
  const owner = ownerEntry(ctx.index, loc);
  const fullShape = owner.kind === "loop" || !allReadersUnder(ctx.index, t.scope.children, t.buffer, owner);
  const cache = makeCacheBuffer(t.buffer, t.storage, region, fullShape);
  const stage = makeCacheStage({
    region,
    src: kind === "read" ? t.buffer : cache,
    dst: kind === "read" ? cache : t.buffer,
    cacheIsSource: kind === "write",
    scope: t.storage,
    fullShape,
    analyzer: analyzerAt(ctx.index, owner),
    outerDomains: domainsAround(ctx.index, owner),
  });
  const info = { scope: t.scopeEntry.node, from: t.buffer, to: cache, region, fullShape, loc, stage: stage.stmt, consumers: t.consumers };
  const rewriter = kind === "read" ? new CacheReadRewriter(info) : new CacheWriteRewriter(info, writer!.node);
  const newScope = rewriter.visitBlock(t.scopeEntry.node);
  ctx.commit(replaceStmts(ctx.func.body, new Map(), new Map([[t.scopeEntry.node, newScope]]), ctx.index));
  const entry = ctx.index.entryOf(stage.block);
  if (entry === undefined || entry.kind !== "block") throw new Error("internal error: the cache stage was not inserted");
  return { outputs: [ctx.blockRV(entry)] };
}

function cacheRead(ctx: PrimitiveContext, inputs: readonly InstructionInput[], attrs: readonly unknown[]) {
  const t = resolveTarget(ctx, "read", inputs, attrs);
  const uncovered = firstUncoveredReader(t.scope, t.buffer);
  if (uncovered !== undefined) {
    throw new NotRegionCoverError(
      "cache-read",
      `The scope ${t.scopeEntry.node.name}'s region cover is not complete: block ${uncovered.node.name} reads a region of ${t.buffer.name} that its producers are not proven to write. The region cover property is required to hold for every child block reading the buffer.`,
      [t.scopeEntry.node],
    );
  }
  const writer = onlyWriter(t, "cache-read");
  if (writer !== undefined) {
    const related = t.consumers.size > 0 ? [...t.consumers] : t.scope.consumersOf(writer).map((c) => c.node);
    const loc = detectCacheLocation(t.scopeEntry.node, writer.node, related);
    const written = writer.node.writes.find((w) => w.buffer === t.buffer)!;
    const region = relaxRegion(ctx.index, writer, written, ownerEntry(ctx.index, loc));
    return applyCache(ctx, t, "read", loc, region, writer);
  }
  // A buffer nobody in the scope writes (a function input): cache it first thing in the scope.
  const loc: CacheLocation = { owner: t.scopeEntry.node, pos: 0 };
  // A read gated by nested blocks' predicates (T.where inside the consumer) needs only the part
  // of the consumer's region those predicates admit (TVM: relaxed under the nested predicates).
  const read = t.blk.node.reads.find((r) => r.buffer === t.buffer);
  const nested = read !== undefined && t.blk !== t.scopeEntry ? nestedBlockPredicate(t.blk.node.body, t.buffer, "read") : undefined;
  const region =
    nested !== undefined && !isTrue(nested)
      ? relaxRegion(ctx.index, t.blk, read!, t.scopeEntry, nested)
      : (t.scopeEntry.node.reads.find((r) => r.buffer === t.buffer) ?? fullRegion(t.buffer));
  return applyCache(ctx, t, "read", loc, region, undefined);
}

function cacheWrite(ctx: PrimitiveContext, inputs: readonly InstructionInput[], attrs: readonly unknown[]) {
  const t = resolveTarget(ctx, "write", inputs, attrs);
  onlyWriter(t, "cache-write");
  const related = t.scope
    .consumersOf(t.blk)
    .filter((c) => !t.consumers.has(c.node))
    .map((c) => c.node);
  const loc = detectCacheLocation(t.scopeEntry.node, t.blk.node, related);
  const written = t.blk.node.writes.find((w) => w.buffer === t.buffer)!;
  const region = relaxRegion(ctx.index, t.blk, written, ownerEntry(ctx.index, loc), nestedBlockPredicate(t.blk.node.body, t.buffer, "write"));
  return applyCache(ctx, t, "write", loc, region, t.blk);
}

function formatCacheArgs(inputs: readonly RenderedInput[], attrs: readonly unknown[]): string {
  const consumers = inputs[1];
  const base = `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0] as number)}, ${tsLiteral(attrs[1] as string)}`;
  return consumers !== undefined && typeof consumers !== "string" && consumers.length > 0 ? `${base}, ${renderInput(consumers)}` : base;
}

export const CACHE_READ: InstructionKind = registerInstruction({
  name: "CacheRead",
  method: "cacheRead",
  pure: false,
  singleOutput: true,
  attrNames: ["read_buffer_index", "storage_scope"],
  apply: (ctx, inputs, attrs) => cacheRead(ctx, inputs, attrs),
  formatArgs: (inputs, attrs) => formatCacheArgs(inputs, attrs),
});

export const CACHE_WRITE: InstructionKind = registerInstruction({
  name: "CacheWrite",
  method: "cacheWrite",
  pure: false,
  singleOutput: true,
  attrNames: ["write_buffer_index", "storage_scope"],
  apply: (ctx, inputs, attrs) => cacheWrite(ctx, inputs, attrs),
  formatArgs: (inputs, attrs) => formatCacheArgs(inputs, attrs),
});
