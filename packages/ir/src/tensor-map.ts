/**
 * TMA (the Tensor Memory Accelerator, sm_90): a 2-D box of a global tensor copied into shared
 * memory by one instruction, placed with the hardware's bank swizzle, its bytes counted against
 * an mbarrier's transaction count — `cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes`.
 *
 *     T.ptx.cp_async_bulk_tensor_2d(dst, A.data, box_inner, box_outer, swizzle_bytes, c_inner, c_outer, bar)
 *
 * - `dst`: a `T.tvm_access_ptr` into shared memory (the box lands in `box_inner · box_outer`
 *   elements from there, row after row, each row's 16-byte chunks swizzled);
 * - `A.data`: a global buffer parameter of the kernel with a 2-D shape (rows, columns), row-major.
 *   The kernel takes a tensor map of it (a `const __grid_constant__ CUtensorMap`), which the host
 *   encodes (`cuTensorMapEncodeTiled`) from the buffer's address, shape and strides, the box and
 *   the swizzle: `TensorMapSpec`, collected from the kernel's calls by `tensorMapsOf`;
 * - `box_inner` columns × `box_outer` rows, constants (1 to 256 each);
 * - `swizzle_bytes`: 0 (none), 32, 64 or 128 — the span of the swizzle pattern; a swizzled box's
 *   rows are exactly that many bytes;
 * - `c_inner`, `c_outer`: the box's first column and row (elements); parts outside the tensor
 *   read as zeros (and still count their bytes);
 * - `bar`: the mbarrier whose phase the copy completes on (ir's mbarrier.ts).
 *
 * The swizzle (CUTLASS's Swizzle<log2(span/16), 4, 3>): in the shared byte offset `o` (from an
 * address aligned to 8 rows of the span), the 16-byte chunk bits 4… are XORed with bits 7…:
 * `o ^ ((o >> 7) & (span/16 − 1)) << 4`. With 128-byte rows: chunk c of row r lands at chunk
 * c ^ (r % 8) — the layout wgmma's 128B-swizzle descriptors read.
 */
import type { Buffer } from "./buffer.js";
import { bytesOf } from "./dtype.js";
import { IRError } from "./errors.js";
import type { Call, PrimExpr } from "./expr.js";
import { forEachExpr } from "./functor.js";
import type { Stmt } from "./stmt.js";

/** The block annotation asking lowering (lowerTmaCopy) to load a pipelined copy block's tile with TMA. */
export const TMA_COPY = "tma_copy";
/**
 * The attribute injectSoftwarePipeline puts inside the commit scope and the wait scope of an async
 * stage whose producers are `tma_copy` blocks: its value is the instance (the original loop
 * iteration, from 0) that the group copies or the consumer reads — the mbarrier phase's parity.
 */
export const TMA_COPY_INSTANCE = "tma_copy_instance";
export const CP_ASYNC_BULK_TENSOR_2D = "ptx.cp_async_bulk_tensor_2d";
export const CP_ASYNC_BULK_TENSOR_ARITY = 8;

/** Swizzle spans TMA supports, in bytes (0: none). */
export const TMA_SWIZZLES = [0, 32, 64, 128] as const;
export type TmaSwizzle = (typeof TMA_SWIZZLES)[number];

/** The largest box extent per dimension. */
export const TMA_MAX_BOX = 256;

/** What the host encodes into a kernel's tensor map of one buffer. */
export interface TensorMapSpec {
  /** The buffer's parameter name. */
  readonly buffer: string;
  readonly dtype: string;
  /** Global extents, outermost first: [rows, columns]. */
  readonly shape: readonly [number, number];
  /** Row stride in elements (columns for a compact buffer). */
  readonly rowStride: number;
  /** The box, outermost first: [rows, columns]. */
  readonly box: readonly [number, number];
  readonly swizzle: TmaSwizzle;
}

const constant = (e: PrimExpr | undefined): number | undefined => (e?.kind === "IntImm" ? e.value : undefined);

/** The constant box and swizzle of a call, checked against `buffer` (its dtype); throws an IRError naming the buffer. */
export function tensorMapOfCall(call: Call, buffer: Buffer): TensorMapSpec {
  if (call.args.length !== CP_ASYNC_BULK_TENSOR_ARITY) throw new IRError(`T.${call.op} takes ${CP_ASYNC_BULK_TENSOR_ARITY} arguments, got ${call.args.length}`);
  const [inner, outer, swizzle] = [constant(call.args[2]), constant(call.args[3]), constant(call.args[4])];
  const where = `T.${call.op} of buffer ${buffer.name}`;
  if (inner === undefined || outer === undefined || swizzle === undefined) throw new IRError(`${where}: the box and the swizzle must be integer constants`);
  const shape = buffer.shape.map(constant);
  if (shape.length !== 2 || shape.some((d) => d === undefined))
    throw new IRError(
      `${where}: a tensor map needs the buffer's constant 2-D shape (rows, columns), got (${buffer.shape.map((d) => (d.kind === "IntImm" ? d.value : "?")).join(", ")})`,
    );
  const spec: TensorMapSpec = {
    buffer: buffer.name,
    dtype: buffer.dtype,
    shape: [shape[0]!, shape[1]!],
    rowStride: rowStrideOf(buffer),
    box: [outer, inner],
    swizzle: swizzle as TmaSwizzle,
  };
  checkTensorMap(spec);
  return spec;
}

/** Throws an IRError naming the buffer when the hardware cannot encode `spec`. */
export function checkTensorMap(spec: TensorMapSpec): void {
  const where = `tensor map of buffer ${spec.buffer}`;
  const bytes = bytesOf(spec.dtype as Parameters<typeof bytesOf>[0]);
  const [rows, cols] = spec.box;
  if (!(TMA_SWIZZLES as readonly number[]).includes(spec.swizzle)) throw new IRError(`${where}: swizzle ${spec.swizzle} bytes; TMA swizzles 0, 32, 64 or 128`);
  for (const [what, v] of [
    ["rows", rows],
    ["columns", cols],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > TMA_MAX_BOX) throw new IRError(`${where}: a box of ${v} ${what}; TMA boxes are 1 to ${TMA_MAX_BOX} per dimension`);
  }
  const rowBytes = cols * bytes;
  if (rowBytes % 16 !== 0) throw new IRError(`${where}: a box row of ${cols} ${spec.dtype} is ${rowBytes} bytes, not a multiple of 16`);
  if (spec.swizzle !== 0 && rowBytes !== spec.swizzle)
    throw new IRError(`${where}: the ${spec.swizzle}-byte swizzle spans ${spec.swizzle} bytes, but a box row (${cols} ${spec.dtype}) is ${rowBytes}`);
  if ((spec.rowStride * bytes) % 16 !== 0 || spec.rowStride < spec.shape[1])
    throw new IRError(`${where}: a row stride of ${spec.rowStride} elements (${spec.rowStride * bytes} bytes) must be a multiple of 16 bytes and cover a row`);
}

/** Bytes of one box (what a load counts against its mbarrier, out-of-bounds parts included). */
export function boxBytes(spec: Pick<TensorMapSpec, "box" | "dtype">): number {
  return spec.box[0] * spec.box[1] * bytesOf(spec.dtype as Parameters<typeof bytesOf>[0]);
}

/** The alignment of a swizzled box's shared destination, in bytes (8 rows of the span; 128 without swizzle). */
export function tmaDestinationAlignment(swizzle: TmaSwizzle): number {
  return swizzle === 0 ? 128 : 8 * swizzle;
}

/** The shared byte offset where byte `offset` of the box (row-major) lands, from an aligned destination. */
export function swizzledOffset(offset: number, swizzle: TmaSwizzle): number {
  if (swizzle === 0) return offset;
  return offset ^ (((offset >> 7) & (swizzle / 16 - 1)) << 4);
}

/**
 * The boxes that fill a `tile` (rows × columns) of `buffer`, row-major over the tile, each as its
 * offset (rows, columns) in the tile; throws an IRError naming the buffer when the box does not divide it.
 */
export function boxesOfTile(buffer: string, tile: readonly [number, number], box: readonly [number, number]): [number, number][] {
  if (tile[0] % box[0] !== 0 || tile[1] % box[1] !== 0)
    throw new IRError(`tensor map of buffer ${buffer}: a ${box[0]}×${box[1]} box does not divide the ${tile[0]}×${tile[1]} tile`);
  const out: [number, number][] = [];
  for (let r = 0; r < tile[0]; r += box[0]) for (let c = 0; c < tile[1]; c += box[1]) out.push([r, c]);
  return out;
}

/**
 * The tensor maps a kernel body needs, by the data variable of their buffer: one per buffer named
 * by a TMA load, from `buffers` (the kernel's parameters). Loads of one buffer must agree on the
 * box and swizzle; a source that is no buffer parameter is an error naming it.
 */
export function tensorMapsOf(body: Stmt, buffers: readonly Buffer[]): Map<Buffer, TensorMapSpec> {
  const out = new Map<Buffer, TensorMapSpec>();
  forEachExpr(body, (e) => {
    if (e.kind !== "Call" || e.op !== CP_ASYNC_BULK_TENSOR_2D) return;
    const source = e.args[1];
    const buffer = source?.kind === "Var" ? buffers.find((b) => b.data === source) : undefined;
    if (buffer === undefined)
      throw new IRError(
        `T.${e.op}: argument 1 must be the data of a global buffer parameter (e.g. A.data), got ${source?.kind === "Var" ? source.name : source?.kind}`,
      );
    const spec = tensorMapOfCall(e, buffer);
    const seen = out.get(buffer);
    if (seen !== undefined && (seen.box[0] !== spec.box[0] || seen.box[1] !== spec.box[1] || seen.swizzle !== spec.swizzle))
      throw new IRError(
        `tensor map of buffer ${buffer.name}: one kernel loads it with a ${seen.box[0]}×${seen.box[1]} box (swizzle ${seen.swizzle}) and a ${spec.box[0]}×${spec.box[1]} box (swizzle ${spec.swizzle}); a buffer has one tensor map`,
      );
    out.set(buffer, spec);
  });
  return out;
}

function rowStrideOf(buffer: Buffer): number {
  const stride = buffer.strides.length === 2 ? constant(buffer.strides[0]) : constant(buffer.shape[1]);
  if (stride === undefined) throw new IRError(`tensor map of buffer ${buffer.name}: its row stride must be a constant`);
  return stride;
}
