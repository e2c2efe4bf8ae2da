/**
 * Statements of TensorIR, including the schedulable `Block` and its `BlockRealize`.
 */
import type { Buffer } from "./buffer.js";
import { elementType, isBool, lanesOf } from "./dtype.js";
import { IRError } from "./errors.js";
import { type ExprLike, type PrimExpr, type Var, accessDType, boolImm, checkAccessPredicate, intImm, toExpr, toIndex } from "./expr.js";

/** `[min, min + extent)`. */
export interface Range {
  readonly min: PrimExpr;
  readonly extent: PrimExpr;
}

export function range(minLike: ExprLike, extentLike: ExprLike): Range {
  return { min: toIndex(minLike, "Range"), extent: toIndex(extentLike, "Range") };
}

/** A range from `0` with the given extent. */
export function rangeFromExtent(extent: ExprLike): Range {
  const e = toIndex(extent, "Range");
  return { min: intImm(0, e.dtype), extent: e };
}

/** Values of annotations and function attributes. */
export type AttrValue = string | number | boolean | PrimExpr | readonly AttrValue[] | { readonly [key: string]: AttrValue };

export type Annotations = Readonly<Record<string, AttrValue>>;

/** Block iterator kinds: `S` data-parallel, `R` reduction, plus TVM's rarer scan and opaque. */
export type IterType = "spatial" | "reduce" | "scan" | "opaque";

export interface IterVar {
  readonly var: Var;
  readonly dom: Range;
  readonly iterType: IterType;
}

export function iterVar(v: Var, dom: Range, iterType: IterType): IterVar {
  return { var: v, dom, iterType };
}

/** A rectangular region of a buffer: one range per dimension. */
export interface BufferRegion {
  readonly buffer: Buffer;
  readonly region: readonly Range[];
}

export function bufferRegion(buffer: Buffer, region: readonly Range[]): BufferRegion {
  if (region.length !== buffer.shape.length) {
    throw new IRError(`region of ${buffer.name}: ${region.length} ranges for a ${buffer.shape.length}-dimensional buffer`);
  }
  return { buffer, region };
}

/** The region covering all of `buffer`. */
export function fullRegion(buffer: Buffer): BufferRegion {
  return { buffer, region: buffer.shape.map((s) => rangeFromExtent(s)) };
}

/** `buffer = T.match_buffer(source[...], ...)` inside a block. */
export interface MatchBufferRegion {
  readonly buffer: Buffer;
  readonly source: BufferRegion;
}

export type ForKind = "serial" | "parallel" | "vectorized" | "unrolled" | "thread_binding";

export interface BufferStore {
  readonly kind: "BufferStore";
  readonly buffer: Buffer;
  readonly value: PrimExpr;
  readonly indices: readonly PrimExpr[];
  /** A vector store's lane mask (TVM's `predicate`, `A.vstore(..., predicate=m)`): lanes where it is false are not written. */
  readonly predicate?: PrimExpr | undefined;
}

export interface SeqStmt {
  readonly kind: "SeqStmt";
  readonly seq: readonly Stmt[];
}

export interface IfThenElse {
  readonly kind: "IfThenElse";
  readonly condition: PrimExpr;
  readonly thenCase: Stmt;
  readonly elseCase?: Stmt | undefined;
}

export interface For {
  readonly kind: "For";
  readonly loopVar: Var;
  readonly min: PrimExpr;
  readonly extent: PrimExpr;
  readonly forKind: ForKind;
  /** For `thread_binding` loops: `blockIdx.x`, `threadIdx.y`, `vthread.x`, … */
  readonly threadTag?: string | undefined;
  /**
   * TVM's loop step: the variable runs `min, min + step, …` while below `min + extent`. Absent
   * means 1. Only parsing, printing, comparison and the CPU executor know it: schedules and
   * lowering refuse a loop that has one (TVM's CanonicalizeLoop rewrites them to unit steps).
   */
  readonly step?: PrimExpr | undefined;
  readonly body: Stmt;
  readonly annotations: Annotations;
}

/** `while condition: body` (TVM's While): runs `body` as long as `condition` holds. */
export interface While {
  readonly kind: "While";
  readonly condition: PrimExpr;
  readonly body: Stmt;
}

export interface Evaluate {
  readonly kind: "Evaluate";
  readonly value: PrimExpr;
}

export interface LetStmt {
  readonly kind: "LetStmt";
  readonly variable: Var;
  readonly value: PrimExpr;
  readonly body: Stmt;
}

/** Lowered code: allocates `buffer`'s storage for the duration of `body`. */
export interface Allocate {
  readonly kind: "Allocate";
  readonly buffer: Buffer;
  readonly body: Stmt;
}

/** Lowered code: declares another view (`buffer`) of storage allocated elsewhere. */
export interface DeclBuffer {
  readonly kind: "DeclBuffer";
  readonly buffer: Buffer;
  readonly body: Stmt;
}

/** Lowered code: an attribute scope, e.g. `thread_extent` of a launch dimension. */
export interface AttrStmt {
  readonly kind: "AttrStmt";
  readonly key: string;
  /** The attribute's subject: a thread variable for `thread_extent`, a buffer's data var, or none. */
  readonly node: Var | undefined;
  /**
   * A subject that is not a variable (with `node` undefined): a string (`T.attr("default", ...)`),
   * a constant, a `T.target(...)` or a `T.comm_reducer(...)`. Passes that do not know it see none.
   */
  readonly subject?: PrimExpr | undefined;
  readonly value: PrimExpr;
  readonly body: Stmt;
}

/** The schedulable unit. Not a statement by itself: it always sits inside a `BlockRealize`. */
export interface Block {
  readonly kind: "Block";
  readonly name: string;
  readonly iterVars: readonly IterVar[];
  readonly reads: readonly BufferRegion[];
  readonly writes: readonly BufferRegion[];
  /** Reduction initialisation: runs when every reduce iterator is at its minimum. */
  readonly init?: Stmt | undefined;
  readonly body: Stmt;
  readonly allocBuffers: readonly Buffer[];
  readonly matchBuffers: readonly MatchBufferRegion[];
  readonly annotations: Annotations;
}

export interface BlockRealize {
  readonly kind: "BlockRealize";
  /** One binding per iter var, in terms of the surrounding loop variables. */
  readonly iterValues: readonly PrimExpr[];
  /** `T.where(...)`: the block instance runs only when this holds. */
  readonly predicate: PrimExpr;
  readonly block: Block;
}

export type Stmt = BufferStore | SeqStmt | IfThenElse | For | While | Evaluate | LetStmt | Allocate | DeclBuffer | AttrStmt | BlockRealize;

export type StmtKind = Stmt["kind"];

// ---------------------------------------------------------------------------------------------
// Constructors

export function bufferStore(buffer: Buffer, valueLike: ExprLike, indices: readonly ExprLike[]): BufferStore {
  if (indices.length !== buffer.shape.length) {
    throw new IRError(`store to ${buffer.name}: ${indices.length} indices given for a ${buffer.shape.length}-dimensional buffer`);
  }
  const idx = indices.map((i) => toIndex(i, `store to ${buffer.name}`));
  const value = toExpr(valueLike, buffer.dtype);
  const lanes = lanesOf(accessDType(buffer, idx));
  if (lanesOf(value.dtype) !== lanes || !sameScalar(value.dtype, buffer.dtype)) {
    throw new IRError(`store to ${buffer.name}: value has dtype ${value.dtype} but the buffer holds ${buffer.dtype}`);
  }
  return { kind: "BufferStore", buffer, value, indices: idx };
}

/** A vector store that writes only the lanes where `predicate` holds. */
export function predicatedStore(store: BufferStore, predicate: PrimExpr): BufferStore {
  return { ...store, predicate: checkAccessPredicate(predicate, store.value.dtype, `store to ${store.buffer.name}`) };
}

function sameScalar(a: string, b: string): boolean {
  return elementType(a) === elementType(b);
}

/** A sequence; nested sequences are flattened and a single statement is returned as is. */
export function seq(stmts: readonly Stmt[]): Stmt {
  const flat: Stmt[] = [];
  for (const s of stmts) {
    if (s.kind === "SeqStmt") flat.push(...s.seq);
    else flat.push(s);
  }
  if (flat.length === 1) return flat[0]!;
  return { kind: "SeqStmt", seq: flat };
}

export function ifThenElseStmt(conditionLike: ExprLike, thenCase: Stmt, elseCase?: Stmt): IfThenElse {
  const condition = toExpr(conditionLike);
  if (!isBool(condition.dtype)) throw new IRError(`if: condition must be bool, got ${condition.dtype}`);
  return { kind: "IfThenElse", condition, thenCase, elseCase };
}

export interface ForOptions {
  min?: ExprLike;
  kind?: ForKind;
  threadTag?: string;
  annotations?: Annotations;
  step?: ExprLike;
}

export function forLoop(loopVar: Var, extent: ExprLike, body: Stmt, opts: ForOptions = {}): For {
  const kind = opts.kind ?? "serial";
  if (kind === "thread_binding" && opts.threadTag === undefined) {
    throw new IRError(`loop ${loopVar.name}: a thread_binding loop needs a thread tag`);
  }
  const loop: For = {
    kind: "For",
    loopVar,
    min: toExpr(opts.min ?? 0, loopVar.dtype),
    extent: toExpr(extent, loopVar.dtype),
    forKind: kind,
    threadTag: kind === "thread_binding" ? opts.threadTag : undefined,
    body,
    annotations: opts.annotations ?? {},
  };
  if (opts.step === undefined) return loop;
  if (kind === "thread_binding") throw new IRError(`loop ${loopVar.name}: a thread_binding loop cannot have a step`);
  const step = toExpr(opts.step, loopVar.dtype);
  if (step.dtype !== loopVar.dtype) throw new IRError(`loop ${loopVar.name}: the step has dtype ${step.dtype}, the loop variable ${loopVar.dtype}`);
  return { ...loop, step };
}

export function whileLoop(conditionLike: ExprLike, body: Stmt): While {
  const condition = toExpr(conditionLike);
  if (!isBool(condition.dtype)) throw new IRError(`while: condition must be bool, got ${condition.dtype}`);
  return { kind: "While", condition, body };
}

export function evaluate(valueLike: ExprLike): Evaluate {
  return { kind: "Evaluate", value: toExpr(valueLike) };
}

export function letStmt(v: Var, valueLike: ExprLike, body: Stmt): LetStmt {
  const value = toExpr(valueLike, v.dtype);
  if (value.dtype !== v.dtype) throw new IRError(`let ${v.name}: value has dtype ${value.dtype}, variable has ${v.dtype}`);
  return { kind: "LetStmt", variable: v, value, body };
}

export function allocate(buffer: Buffer, body: Stmt): Allocate {
  return { kind: "Allocate", buffer, body };
}

export function declBufferStmt(buffer: Buffer, body: Stmt): DeclBuffer {
  return { kind: "DeclBuffer", buffer, body };
}

/** `T.device_entry()`: the AttrStmt key (value `True`, no subject) that marks the rest of the body as device code. */
export const DEVICE_ENTRY_KEY = "tirx.device_entry";
/**
 * `tx = T.thread_id([n])`: TVM's cta→thread scope-id definition, held as an AttrStmt with this key,
 * the defined variable as subject and the extent as value (see tvm-deviations-tvmscript.md).
 */
export const THREAD_ID_KEY = "tirx.thread_id";
export function attrStmt(key: string, node: Var | undefined, valueLike: ExprLike, body: Stmt, subject?: PrimExpr): AttrStmt {
  const s: AttrStmt = { kind: "AttrStmt", key, node, value: toExpr(valueLike), body };
  return subject === undefined ? s : { ...s, subject };
}

export interface BlockFields {
  name: string;
  iterVars?: readonly IterVar[];
  reads?: readonly BufferRegion[];
  writes?: readonly BufferRegion[];
  init?: Stmt | undefined;
  body: Stmt;
  allocBuffers?: readonly Buffer[];
  matchBuffers?: readonly MatchBufferRegion[];
  annotations?: Annotations;
}

export function block(f: BlockFields): Block {
  return {
    kind: "Block",
    name: f.name,
    iterVars: f.iterVars ?? [],
    reads: f.reads ?? [],
    writes: f.writes ?? [],
    init: f.init,
    body: f.body,
    allocBuffers: f.allocBuffers ?? [],
    matchBuffers: f.matchBuffers ?? [],
    annotations: f.annotations ?? {},
  };
}

export function blockRealize(iterValues: readonly ExprLike[], predicateLike: ExprLike, blk: Block): BlockRealize {
  if (iterValues.length !== blk.iterVars.length) {
    throw new IRError(`block ${blk.name}: ${iterValues.length} bindings given for ${blk.iterVars.length} iterators`);
  }
  const values = iterValues.map((v, i) => toExpr(v, blk.iterVars[i]!.var.dtype));
  const predicate = typeof predicateLike === "boolean" ? boolImm(predicateLike) : toExpr(predicateLike);
  if (!isBool(predicate.dtype)) throw new IRError(`block ${blk.name}: predicate must be bool, got ${predicate.dtype}`);
  return { kind: "BlockRealize", iterValues: values, predicate, block: blk };
}
