/**
 * Buffer declarations: `T.Buffer(...)` parameter annotations, `T.alloc_buffer`, `T.match_buffer`,
 * `T.decl_buffer`, and buffer regions `A[vi, 0:16]`.
 */
import { type Buffer, hasDefaultElemOffset } from "../buffer.js";
import type { BufferRegion } from "../stmt.js";
import type { PrintContext } from "./context.js";
import { addFolded, exprText } from "./expr-printer.js";
import { pyString } from "./literals.js";

/** Defaults that are left out of declarations. */
const DEFAULT_DTYPE = "float32";
const DEFAULT_ALIGNMENT = 64;
const DEFAULT_OFFSET_FACTOR = 0;

export function shapeText(ctx: PrintContext, shape: Buffer["shape"]): string {
  const parts = shape.map((s) => exprText(ctx, s));
  return parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(", ")})`;
}

export interface BufferCallOptions {
  /** Leading positional arguments (the handle of `match_buffer`, the region of a block's match). */
  leading?: readonly string[];
  /** Print the dtype even when it is the default float32. */
  alwaysDType?: boolean;
  /** Leave out `elem_offset=` (see `isImplicitElemOffset`). */
  implicitElemOffset?: boolean;
  /** Write `elem_offset=0` (see `needsExplicitZeroOffset`). */
  explicitZeroOffset?: boolean;
}

/**
 * `T.<method>(shape, dtype?, data=?, strides=?, elem_offset=?, scope=?, align=?, offset_factor=?)`.
 * Call before `ctx.defineBuffer` so that a data pointer owned by the buffer is not printed as `data=`.
 */
export function bufferCall(ctx: PrintContext, method: string, buffer: Buffer, opts: BufferCallOptions = {}): string {
  const args = [...(opts.leading ?? []), shapeText(ctx, buffer.shape)];
  if (opts.alwaysDType || buffer.dtype !== DEFAULT_DTYPE) args.push(pyString(buffer.dtype, ctx.style));
  const data = ctx.names.get(buffer.data);
  if (data !== undefined) args.push(`data=${data}`);
  if (buffer.strides.length > 0) args.push(`strides=${shapeText(ctx, buffer.strides)}`);
  if ((!hasDefaultElemOffset(buffer) || opts.explicitZeroOffset === true) && opts.implicitElemOffset !== true) {
    args.push(`elem_offset=${exprText(ctx, buffer.elemOffset)}`);
  }
  if (buffer.scope !== "global") args.push(`scope=${pyString(buffer.scope, ctx.style)}`);
  if (buffer.dataAlignment !== DEFAULT_ALIGNMENT) args.push(`align=${ctx.style.number(String(buffer.dataAlignment))}`);
  if (buffer.offsetFactor !== DEFAULT_OFFSET_FACTOR) {
    args.push(`offset_factor=${ctx.style.number(String(buffer.offsetFactor))}`);
  }
  return `${ctx.tir(method)}(${args.join(", ")})`;
}

/**
 * In today's dialect, a match_buffer's fresh offset variable with a non-zero `offset_factor`
 * goes unwritten, as TVM prints it: the parser makes one again; uses print as `<buffer>.elem_offset`.
 */
export function isImplicitElemOffset(ctx: PrintContext, buffer: Buffer): boolean {
  return (
    ctx.dialect === "tvm" && buffer.elemOffset.kind === "Var" && buffer.offsetFactor !== DEFAULT_OFFSET_FACTOR && ctx.names.get(buffer.elemOffset) === undefined
  );
}

/**
 * A match_buffer whose offset is the constant 0 but has an `offset_factor` writes `elem_offset=0`
 * in today's dialect, which would otherwise read it as a fresh variable (the course's reads 0).
 */
export function needsExplicitZeroOffset(ctx: PrintContext, buffer: Buffer): boolean {
  return ctx.dialect === "tvm" && hasDefaultElemOffset(buffer) && buffer.offsetFactor !== DEFAULT_OFFSET_FACTOR;
}

/**
 * `<name> = T.match_buffer(<leading>, ...)` of a parameter or a block, defining the buffer's name
 * (and, for an implicit offset variable, `<name>.elem_offset`).
 */
export function matchBufferLine(ctx: PrintContext, buffer: Buffer, leading: string): string {
  const implicitElemOffset = isImplicitElemOffset(ctx, buffer);
  const explicitZeroOffset = needsExplicitZeroOffset(ctx, buffer);
  const rhs = bufferCall(ctx, "match_buffer", buffer, { leading: [leading], implicitElemOffset, explicitZeroOffset });
  const name = ctx.defineBuffer(buffer);
  if (implicitElemOffset) ctx.names.alias(buffer.elemOffset, `${name}.elem_offset`);
  return `${name} = ${rhs}`;
}

/**
 * Whether a parameter buffer can be written inline as `A: T.Buffer(shape, dtype)`: compact,
 * constant shape, global, default alignment and offset (TVM's `IsSimpleBuffer`).
 */
export function isSimpleParamBuffer(buffer: Buffer): boolean {
  return (
    buffer.strides.length === 0 &&
    buffer.shape.every((s) => s.kind === "IntImm") &&
    hasDefaultElemOffset(buffer) &&
    buffer.scope === "global" &&
    buffer.dataAlignment === DEFAULT_ALIGNMENT &&
    buffer.offsetFactor === DEFAULT_OFFSET_FACTOR
  );
}

/** `A[vi, vk]` for points, `A[vi * 8:vi * 8 + 8, 0:16]` for ranges. */
export function bufferRegionText(ctx: PrintContext, r: BufferRegion): string {
  const name = ctx.bufferName(r.buffer);
  if (r.region.length === 0) return `${name}[()]`;
  const parts = r.region.map((rg) => {
    const min = exprText(ctx, rg.min);
    if (rg.extent.kind === "IntImm" && rg.extent.value === 1) return min;
    return `${min}:${exprText(ctx, addFolded(rg.min, rg.extent))}`;
  });
  return `${name}[${parts.join(", ")}]`;
}
