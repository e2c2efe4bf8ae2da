/**
 * Accesses to block-shared storage, as the barrier planner (`threadSync`) sees them: which buffer
 * (by its `data` variable), read or write, and at which index. An access summarised over a loop
 * keeps its index with the loop iterator replaced by a stand-in variable of the same domain (any
 * iteration); no index means any element.
 */
import {
  type Buffer,
  type BufferLoad,
  IRVisitor,
  forEachExpr,
  intImm,
  lanesOf,
  type PrimExpr,
  ramp,
  type Var,
  sameExprStructure,
  substitute,
  usesVar,
} from "@tessera/ir";
import { type DisjointnessCache, provablyDisjoint } from "./index-disjointness.js";
import type { VarDomains } from "./var-domains.js";

export interface SharedAccess {
  readonly kind: "read" | "write";
  readonly buffer: Buffer;
  /** Undefined: any element. */
  readonly indices: readonly PrimExpr[] | undefined;
}

export type AccessEntry = SharedAccess | { readonly kind: "sync" };

export function isSharedScope(buffer: Buffer): boolean {
  return buffer.scope === "shared" || buffer.scope === "shared.dyn";
}

/** Reads of shared buffers in the expressions, in order and evaluation order (inner loads first). */
export function sharedReads(...exprs: readonly PrimExpr[]): SharedAccess[] {
  const collector = new SharedReadCollector();
  for (const e of exprs) collector.visitExpr(e);
  return collector.reads;
}

class SharedReadCollector extends IRVisitor {
  readonly reads: SharedAccess[] = [];

  override visitBufferLoad(e: BufferLoad): void {
    super.visitBufferLoad(e);
    if (isSharedScope(e.buffer)) this.reads.push({ kind: "read", buffer: e.buffer, indices: e.indices });
  }
}

/**
 * Shared accesses through `T.tvm_access_ptr(type, data, offset, extent, rw_mask)` pointers in the
 * expression (the WMMA load and store and the wgmma intrinsics take one): a read for mask bit 1, a
 * write for bit 2, of the shared buffer whose storage `data` is (`sharedOf`). As TVM's
 * StorageAccessVisitor, the access covers elements `[offset, offset + extent)` when the buffer is
 * flat, its elements are the pointer's and the extent is a constant; any element otherwise.
 */
export function sharedPointerAccesses(e: PrimExpr, sharedOf: (data: Var) => Buffer | undefined): SharedAccess[] {
  const accesses: SharedAccess[] = [];
  forEachExpr(e, (x) => {
    if (x.kind !== "Call" || x.op !== "tvm_access_ptr") return;
    const [type, data, offset, extent, mask] = x.args;
    const buffer = data?.kind === "Var" ? sharedOf(data) : undefined;
    if (buffer === undefined) return;
    const indices = pointedRange(buffer, type, offset, extent);
    // A mask that is not a constant may read and write.
    const bits = mask?.kind === "IntImm" ? mask.value : 3;
    if (bits & 1) accesses.push({ kind: "read", buffer, indices });
    if (bits & 2) accesses.push({ kind: "write", buffer, indices });
  });
  return accesses;
}

/** `[offset, offset + extent)` of a flat buffer as one index (a ramp, or the offset for one element). */
function pointedRange(buffer: Buffer, type: PrimExpr | undefined, offset: PrimExpr | undefined, extent: PrimExpr | undefined): readonly PrimExpr[] | undefined {
  if (buffer.shape.length !== 1 || type?.dtype !== buffer.dtype || offset === undefined || extent?.kind !== "IntImm" || extent.value < 1) return undefined;
  if (lanesOf(offset.dtype) !== 1) return undefined;
  return [extent.value === 1 ? offset : ramp(offset, intImm(1, offset.dtype), extent.value)];
}

/** The entries as seen outside the scope of `v` (a loop iterator): `v` becomes a stand-in for any of its values. */
export function relaxOver(entries: readonly AccessEntry[], v: Var, domains: VarDomains): AccessEntry[] {
  let standIn: Var | undefined;
  return entries.map((a) => {
    if (a.kind === "sync" || a.indices === undefined || !a.indices.some((i) => usesVar(i, (x) => x === v))) return a;
    standIn ??= domains.standIn(v);
    const s = standIn;
    return { ...a, indices: a.indices.map((i) => substitute(i, (x) => (x === v ? s : undefined))) };
  });
}

/** The entries as seen outside `let v = value`: `v` replaced by its value. */
export function bindLet(entries: readonly AccessEntry[], v: Var, value: PrimExpr): AccessEntry[] {
  return entries.map((a) =>
    a.kind === "sync" || a.indices === undefined || !a.indices.some((i) => usesVar(i, (x) => x === v))
      ? a
      : { ...a, indices: a.indices.map((i) => substitute(i, (x) => (x === v ? value : undefined))) },
  );
}

export interface ConflictContext {
  /** Thread indices of the block with extent > 1 (the variables a per-thread index must use). */
  readonly threadVars: readonly Var[];
  /** Variables whose value differs between the two accesses (the loop variable, for a loop-carried check). */
  readonly changing: readonly Var[];
  readonly domains: VarDomains;
  /** Shared by the checks of one pass. */
  readonly cache: DisjointnessCache;
}

/**
 * Do two accesses of the same block touch an element that another thread touches? No when they
 * name the same single element per thread (structurally equal point indices using every thread
 * index of the block, no stand-in), or when their elements are provably disjoint for any two
 * threads (and, for `changing` variables, any two values).
 */
export function mayConflict(prev: SharedAccess, curr: SharedAccess, ctx: ConflictContext): boolean {
  if (prev.buffer.data !== curr.buffer.data) return false;
  if (prev.indices === undefined || curr.indices === undefined) return true;
  if (sameElementPerThread(prev.indices, curr.indices, ctx)) return false;
  const independent = (v: Var): boolean => ctx.threadVars.includes(v) || ctx.changing.includes(v) || ctx.domains.isStandIn(v);
  return !provablyDisjoint(prev.indices, curr.indices, independent, ctx.domains, ctx.cache);
}

function sameElementPerThread(prev: readonly PrimExpr[], curr: readonly PrimExpr[], ctx: ConflictContext): boolean {
  if (prev.length !== curr.length || !prev.every((x, i) => sameExprStructure(x, curr[i]!))) return false;
  const uses = (v: Var): boolean => curr.some((i) => usesVar(i, (x) => x === v));
  if (curr.some((i) => i.kind === "Ramp" || i.dtype.includes("x"))) return false;
  if (ctx.changing.some(uses) || curr.some((i) => usesVar(i, (x) => ctx.domains.isStandIn(x)))) return false;
  return ctx.threadVars.every(uses);
}
