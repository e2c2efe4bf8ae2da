/**
 * Buffers: typed multi-dimensional views of memory. A buffer has identity (two buffers with the
 * same name are different buffers); its `data` variable names the storage, so buffers that share
 * `data` alias the same memory (as after flattening or `match_buffer`).
 */
import { type DType, dtypeInfo } from "./dtype.js";
import { IRError } from "./errors.js";
import { type ExprLike, type PrimExpr, type Var, intImm, toIndex, variable } from "./expr.js";

/**
 * Where a buffer lives on a GPU, as TVM spells it (runtime/thread_storage_scope.h): a storage rank
 * (`global` is device memory, `local` registers, `shared` a thread block's memory), optionally
 * followed by a tag (`shared.dyn`, `global.texture`, `local.L0A`). The `wmma.*` and `m16n8k8.*`
 * ranks are tensor-core fragments, the others target-specific memories: they parse, print and
 * schedule like local memory, but no code generator of ours allocates them.
 */
export const STORAGE_RANKS = [
  "global",
  "shared",
  "warp",
  "local",
  "wmma.matrix_a",
  "wmma.matrix_b",
  "wmma.accumulator",
  "texture",
  "amx.tmm",
  "m16n8k8.matrixA",
  "m16n8k8.matrixB",
  "m16n8k8.matrixC",
  "metal.simdgroup",
  "metal.cooperative_tensor",
  "trn.sbuf",
  "trn.psum",
] as const;

export type StorageRankName = (typeof STORAGE_RANKS)[number];

export type StorageScope = StorageRankName | `${StorageRankName}.${string}`;

/** The scopes our code generators and schedules know by name (tagged scopes of other ranks parse too). */
export const STORAGE_SCOPES: readonly StorageScope[] = [
  "global",
  "shared",
  "shared.dyn",
  "local",
  "warp",
  "wmma.matrix_a",
  "wmma.matrix_b",
  "wmma.accumulator",
];

const rankOfScope = new Map<string, StorageRankName | undefined>(STORAGE_RANKS.map((r) => [r, r]));

/** The rank of a scope, its longest rank prefix followed by nothing or a `.tag`; undefined when it has none. */
export function storageRankOf(scope: string): StorageRankName | undefined {
  // Passes ask for the ranks of the same few scopes over and over.
  if (rankOfScope.has(scope)) return rankOfScope.get(scope);
  const rank = findStorageRank(scope);
  if (rank !== undefined) rankOfScope.set(scope, rank);
  return rank;
}

function findStorageRank(scope: string): StorageRankName | undefined {
  let found: StorageRankName | undefined;
  for (const rank of STORAGE_RANKS) {
    if (scope === rank || (scope.startsWith(rank) && scope[rank.length] === "." && scope.length > rank.length + 1)) {
      if (found === undefined || rank.length > found.length) found = rank;
    }
  }
  return found;
}

export function isStorageScope(s: string): s is StorageScope {
  return storageRankOf(s) !== undefined;
}

/** How a scope is described in errors: the ranks, and that a tag may follow. */
export const STORAGE_SCOPE_SYNTAX = `a storage rank (${STORAGE_RANKS.join(", ")}), optionally followed by ".tag" as in "shared.dyn"`;

export interface Buffer {
  readonly kind: "Buffer";
  readonly name: string;
  readonly dtype: DType;
  readonly shape: readonly PrimExpr[];
  /** Empty means compact row-major. */
  readonly strides: readonly PrimExpr[];
  /** Offset of element 0 in elements. */
  readonly elemOffset: PrimExpr;
  readonly scope: StorageScope;
  /** The storage pointer (dtype `handle`); shared by aliasing buffers. */
  readonly data: Var;
  readonly dataAlignment: number;
  readonly offsetFactor: number;
}

export interface BufferOptions {
  strides?: readonly ExprLike[];
  elemOffset?: ExprLike;
  scope?: StorageScope;
  data?: Var;
  dataAlignment?: number;
  offsetFactor?: number;
}

/** Declares a new buffer. */
export function declBuffer(name: string, shape: readonly ExprLike[], dt: DType = "float32", opts: BufferOptions = {}): Buffer {
  dtypeInfo(dt);
  const scope = opts.scope ?? "global";
  if (!isStorageScope(scope)) throw new IRError(`buffer ${name}: unknown storage scope "${String(scope)}"`);
  const where = `buffer ${name}`;
  const strides = (opts.strides ?? []).map((s) => toIndex(s, where));
  if (strides.length !== 0 && strides.length !== shape.length) {
    throw new IRError(`${where}: ${strides.length} strides given for ${shape.length} dimensions`);
  }
  const shapeExprs = shape.map((s) => toIndex(s, where));
  return {
    kind: "Buffer",
    name,
    dtype: dt,
    shape: shapeExprs,
    strides,
    elemOffset: opts.elemOffset === undefined ? intImm(0, indexTypeOfShape(shapeExprs)) : toIndex(opts.elemOffset, where),
    scope,
    data: opts.data ?? variable(name, "handle"),
    dataAlignment: opts.dataAlignment ?? 64,
    offsetFactor: opts.offsetFactor ?? 0,
  };
}

/**
 * TVM's `BufferNode::DefaultIndexType`, the dtype of a default elem_offset: that of the first
 * dimension, or int64 (TVM's default index type) for a 0-dimensional buffer.
 */
export function indexTypeOfShape(shape: readonly PrimExpr[]): DType {
  return shape[0]?.dtype ?? "int64";
}

/** Is the element offset the zero a buffer of this shape starts with (printed by omission)? */
export function hasDefaultElemOffset(buffer: Buffer): boolean {
  const off = buffer.elemOffset;
  return off.kind === "IntImm" && off.value === 0 && off.dtype === indexTypeOfShape(buffer.shape);
}

/** A copy of `buffer` with some fields replaced: a new buffer with its own identity and storage. */
export function withBuffer(buffer: Buffer, changes: Partial<Omit<Buffer, "kind">>): Buffer {
  const next = { ...buffer, ...changes };
  if (changes.data === undefined && (changes.name !== undefined || changes.scope !== undefined)) {
    return { ...next, data: variable(next.name, "handle") };
  }
  return next;
}

/** Number of elements, if the shape is constant. */
export function constantSize(buffer: Buffer): number | undefined {
  let n = 1;
  for (const s of buffer.shape) {
    if (s.kind !== "IntImm") return undefined;
    n *= s.value;
  }
  return n;
}

/** The shape as numbers, or throws naming the buffer when a dimension is symbolic. */
export function constantShape(buffer: Buffer): number[] {
  return buffer.shape.map((s, i) => {
    if (s.kind !== "IntImm") throw new IRError(`buffer ${buffer.name}: dimension ${i} is not a constant`);
    return s.value;
  });
}
