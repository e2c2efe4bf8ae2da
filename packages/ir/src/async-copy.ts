/**
 * Asynchronous global → shared copies (CUDA `cp.async`, sm_80 and newer) as TVM represents them.
 *
 * TVM's InjectSoftwarePipeline marks the producers and consumers of asynchronous pipeline stages
 * with attributes (their subject is the integer 0 in TVM, none here):
 *
 *     T.attr(0, "async_commit_queue_scope", stage)   # the body's copies form one group
 *         T.attr(0, "async_scope", 1)               # shared[...] = global[...] stores
 *     T.attr(0, "async_wait_queue_scope", stage)     # before the body, wait until at most
 *         T.attr(0, "async_wait_inflight_count", n)  # n groups of the queue are in flight
 *
 * and InjectPTXAsyncCopy turns each store inside `async_scope` into
 * `T.ptx_cp_async("float32", dst, dst_offset, src, src_offset, bytes[, predicate])`: copy `bytes`
 * bytes from element `src_offset` of `src` (a global buffer's data) to element `dst_offset` of
 * `dst` (a shared buffer's data), offsets counted in elements of the dtype. With a predicate, the
 * copy writes zeros instead where the predicate is false (PTX's zero fill).
 */
import { type DType, bytesOf, isBool, isHandle, isIntegral, lanesOf } from "./dtype.js";
import { IRError } from "./errors.js";
import { type Call, type PrimExpr, type Var, intImm } from "./expr.js";
import type { AttrStmt, Stmt } from "./stmt.js";

export const ASYNC_SCOPE = "async_scope";
export const ASYNC_COMMIT_QUEUE_SCOPE = "async_commit_queue_scope";
export const ASYNC_WAIT_QUEUE_SCOPE = "async_wait_queue_scope";
export const ASYNC_WAIT_INFLIGHT_COUNT = "async_wait_inflight_count";

/** The attribute keys of asynchronous pipeline stages. */
export const ASYNC_ATTR_KEYS: ReadonlySet<string> = new Set([ASYNC_SCOPE, ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_QUEUE_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT]);

/** The sizes one `cp.async` can copy. */
export const ASYNC_COPY_BYTES: readonly number[] = [4, 8, 16];

export const PTX_CP_ASYNC = "ptx_cp_async";

/** The operands of one `T.ptx_cp_async`. */
export interface AsyncCopy {
  /** Element dtype of both buffers; the offsets count elements of it. */
  readonly dtype: DType;
  /** The shared buffer's data. */
  readonly dst: Var;
  readonly dstOffset: PrimExpr;
  /** The global buffer's data. */
  readonly src: Var;
  readonly srcOffset: PrimExpr;
  /** 4, 8 or 16. */
  readonly bytes: number;
  /** Zero-fill form: where false, the destination gets zeros and the source is not read. */
  readonly predicate: PrimExpr | undefined;
}

/** Elements one copy moves. */
export function asyncCopyLanes(copy: AsyncCopy): number {
  return copy.bytes / bytesOf(copy.dtype);
}

/** Builds `T.ptx_cp_async(...)`, checking every operand. */
export function ptxCpAsync(copy: AsyncCopy): Call {
  const what = `T.${PTX_CP_ASYNC}`;
  if (lanesOf(copy.dtype) !== 1 || isBool(copy.dtype) || isHandle(copy.dtype)) {
    throw new IRError(`${what}: the element dtype must be a scalar number type, got ${copy.dtype}`);
  }
  for (const [role, v] of [
    ["destination", copy.dst],
    ["source", copy.src],
  ] as const) {
    if (v.kind !== "Var" || !isHandle(v.dtype)) throw new IRError(`${what}: the ${role} must be a buffer's data (a handle), such as A.data`);
  }
  for (const [role, e] of [
    ["destination offset", copy.dstOffset],
    ["source offset", copy.srcOffset],
  ] as const) {
    if (!isIntegral(e.dtype) || lanesOf(e.dtype) !== 1) throw new IRError(`${what}: the ${role} must be a scalar integer, got ${e.dtype}`);
  }
  if (!ASYNC_COPY_BYTES.includes(copy.bytes) || copy.bytes % bytesOf(copy.dtype) !== 0) {
    throw new IRError(`${what}: copies 4, 8 or 16 bytes (a whole number of ${copy.dtype} elements), got ${copy.bytes}`);
  }
  const p = copy.predicate;
  if (p !== undefined && (!isBool(p.dtype) || lanesOf(p.dtype) !== 1)) {
    throw new IRError(`${what}: the predicate must be a scalar bool, got ${p.dtype}`);
  }
  const args: PrimExpr[] = [copy.dst, copy.dstOffset, copy.src, copy.srcOffset, intImm(copy.bytes)];
  if (p !== undefined) args.push(p);
  return { kind: "Call", dtype: copy.dtype, op: PTX_CP_ASYNC, args };
}

/** Parses the operands of a `T.ptx_cp_async` call (as the printer/parser see them, after the dtype). */
export function ptxCpAsyncFromArgs(dtype: DType, args: readonly PrimExpr[]): Call {
  if (args.length !== 5 && args.length !== 6) {
    throw new IRError(
      `T.${PTX_CP_ASYNC} takes a dtype, dst, dst_offset, src, src_offset, bytes and an optional predicate; got ${args.length} arguments after the dtype`,
    );
  }
  const [dst, dstOffset, src, srcOffset, bytes, predicate] = args as [PrimExpr, PrimExpr, PrimExpr, PrimExpr, PrimExpr, PrimExpr?];
  if (dst.kind !== "Var" || src.kind !== "Var") throw new IRError(`T.${PTX_CP_ASYNC}: dst and src must be buffers' data, such as A.data`);
  if (bytes.kind !== "IntImm") throw new IRError(`T.${PTX_CP_ASYNC}: the byte count must be a constant`);
  return ptxCpAsync({ dtype, dst, dstOffset, src, srcOffset, bytes: bytes.value, predicate });
}

/** The operands of `e` when it is a `T.ptx_cp_async` call. */
export function asAsyncCopy(e: PrimExpr): AsyncCopy | undefined {
  if (e.kind !== "Call" || e.op !== PTX_CP_ASYNC) return undefined;
  const [dst, dstOffset, src, srcOffset, bytes, predicate] = e.args;
  if (dst?.kind !== "Var" || src?.kind !== "Var" || dstOffset === undefined || srcOffset === undefined || bytes?.kind !== "IntImm") {
    throw new IRError(`malformed T.${PTX_CP_ASYNC} call (${e.args.length} arguments)`);
  }
  return { dtype: e.dtype, dst, dstOffset, src, srcOffset, bytes: bytes.value, predicate };
}

/** What an `async_wait_queue_scope` attribute says. */
export interface AsyncWait {
  /** The queue (pipeline stage) waited on. */
  readonly queue: PrimExpr;
  /** How many of its most recent groups may still be in flight. */
  readonly inflight: PrimExpr;
  /** The consumer, which runs after the wait. */
  readonly body: Stmt;
}

/** Reads `async_wait_queue_scope(queue)` directly around `async_wait_inflight_count(n)`. */
export function asyncWaitOf(s: AttrStmt): AsyncWait {
  const inner = s.body;
  if (s.key !== ASYNC_WAIT_QUEUE_SCOPE || inner.kind !== "AttrStmt" || inner.key !== ASYNC_WAIT_INFLIGHT_COUNT) {
    throw new IRError(`"${ASYNC_WAIT_QUEUE_SCOPE}" must directly contain an "${ASYNC_WAIT_INFLIGHT_COUNT}" attribute`);
  }
  return { queue: s.value, inflight: inner.value, body: inner.body };
}
