/**
 * JS for asynchronous copies: `T.ptx_cp_async` issues a copy on the thread's queue (`$async`),
 * an `async_commit_queue_scope` commits after its body, an `async_wait_queue_scope` waits before
 * its body. The queue decides when copies land (see async-copies.ts).
 */
import { type AsyncCopy, asyncCopyLanes } from "../async-copy.js";
import type { Buffer } from "../buffer.js";
import { elementType } from "../dtype.js";
import { type PrimExpr, type Var, ramp } from "../expr.js";
import { describeExpr } from "../printer/expr-text.js";
import { declareBufferLayout, storageSize } from "./buffer-layout.js";
import type { EmitContext } from "./context.js";
import { emitExpr } from "./emit-expr.js";
import { ExecutionError } from "./errors.js";

interface CopyStorage {
  readonly array: string;
  readonly owner: Buffer;
  /** Elements the storage holds (JS). */
  readonly extent: string;
}

/** The typed array behind a copy operand, checked to hold elements of the copy's dtype. */
function copyStorage(ctx: EmitContext, data: Var, copy: AsyncCopy, role: string): CopyStorage {
  const array = ctx.arrayOf(data);
  const owner = ctx.storageOwner(data);
  if (array === undefined || owner === undefined) {
    throw new ExecutionError(`T.ptx_cp_async${ctx.where}: its ${role} ${data.name} is not a parameter's or an allocation's data`);
  }
  if (elementType(owner.dtype) !== copy.dtype) {
    throw new ExecutionError(`T.ptx_cp_async${ctx.where}: copies ${copy.dtype} elements, but its ${role} ${owner.name} holds ${owner.dtype}`);
  }
  const layout = ctx.layout(owner) ?? declareBufferLayout(ctx, owner, array, false);
  return { array, owner, extent: storageSize(layout, owner) };
}

/** `[start, start + count)` must lie in `[0, extent)`; reports the first element outside. */
function rangeCheck(site: number, start: string, count: number, extent: string): string {
  return `(${start} < 0 || ${start} + ${count} > ${extent}) && $oob(${site}, [${start} < 0 ? ${start} : Math.max(${start}, ${extent})], [${extent}])`;
}

export function emitAsyncCopy(ctx: EmitContext, copy: AsyncCopy): void {
  const lanes = asyncCopyLanes(copy);
  const dst = copyStorage(ctx, copy.dst, copy, "destination");
  const src = copyStorage(ctx, copy.src, copy, "source");
  const queue = ctx.asyncQueue();
  const site = (owner: Buffer, offset: PrimExpr, access: "load" | "store"): number =>
    ctx.sites.add({ kind: "access", access, bufferName: owner.name, text: `T.ptx_cp_async of ${describeCopied(owner, offset, lanes)}`, where: ctx.where });
  const dstSite = site(dst.owner, copy.dstOffset, "store");
  const srcSite = site(src.owner, copy.srcOffset, "load");
  const [d, s, p] = [ctx.names.internal("cp_dst"), ctx.names.internal("cp_src"), ctx.names.internal("cp_pred")];
  // The destination's elements as the `elementIndex` hook sees them, recorded when the copy lands.
  const hook = ctx.hooks.elementIndex;
  const dstAccess = [lanes === 1 ? copy.dstOffset : ramp(copy.dstOffset, 1, lanes)];
  const record = hook === undefined ? "undefined" : `(i) => ${hook(ctx, dst.owner, dstAccess, "i", "store", undefined, true)}`;
  const dstJs = emitExpr(ctx, copy.dstOffset);
  const issued = ctx.hooks.asyncCopyIssue === undefined ? dstJs : ctx.hooks.asyncCopyIssue(ctx, dst.owner, dstAccess, dstJs);
  ctx.nested("{", () => {
    ctx.line(`const ${d} = ${issued}, ${s} = ${emitExpr(ctx, copy.srcOffset)};`);
    ctx.line(`const ${p} = ${copy.predicate === undefined ? "true" : emitExpr(ctx, copy.predicate)};`);
    if (ctx.boundsCheck) {
      ctx.line(`${rangeCheck(dstSite, d, lanes, dst.extent)};`);
      ctx.line(`${p} && ${rangeCheck(srcSite, s, lanes, src.extent)};`);
    }
    ctx.line(`${queue}.copy(${dst.array}, ${d}, ${src.array}, ${s}, ${lanes}, ${p}, ${dstSite}, ${record});`);
  });
}

function describeCopied(owner: Buffer, offset: PrimExpr, lanes: number): string {
  return `${owner.name}[${describeExpr(offset)}${lanes > 1 ? ` : ${describeExpr(offset)} + ${lanes}` : ""}]`;
}

export function emitAsyncCommit(ctx: EmitContext): void {
  ctx.line(`${ctx.asyncQueue()}.commit();`);
}

export function emitAsyncWait(ctx: EmitContext, inflight: PrimExpr): void {
  ctx.line(`${ctx.asyncQueue()}.wait(${emitExpr(ctx, inflight)});`);
}
