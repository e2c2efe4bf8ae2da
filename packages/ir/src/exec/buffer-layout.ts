/**
 * Buffer layouts (which typed array, offset and strides) and the JS of element accesses,
 * with optional per-dimension bounds checks.
 */
import type { Buffer } from "../buffer.js";
import { dtypeInfo, bitsOf } from "../dtype.js";
import type { PrimExpr } from "../expr.js";
import type { MatchBufferRegion } from "../stmt.js";
import type { BufferLayout, EmitContext } from "./context.js";
import { describeAccess } from "../printer/expr-text.js";
import { ExecutionError } from "./errors.js";
import { emitExpr } from "./emit-expr.js";
import { indexRange } from "./index-ranges.js";

const IDENTIFIER_OR_NUMBER = /^(?:[A-Za-z_$][\w$]*|\d+)$/;

export function isAtom(js: string): boolean {
  return IDENTIFIER_OR_NUMBER.test(js);
}

/** `a * b` with constant folding and the trivial factors dropped. */
function product(a: string, b: string): string {
  if (/^\d+$/.test(a) && /^\d+$/.test(b)) return String(Number(a) * Number(b));
  if (a === "1") return b;
  if (b === "1") return a;
  if (a === "0" || b === "0") return "0";
  return `(${a} * ${b})`;
}

/** `Σ terms` with zeros dropped. */
function sum(terms: readonly string[]): string {
  const kept = terms.filter((t) => t !== "0");
  if (kept.length === 0) return "0";
  return kept.length === 1 ? kept[0]! : kept.join(" + ");
}

/** Strides of a compact row-major buffer with the given shape. */
function rowMajorStrides(shape: readonly string[]): string[] {
  const strides = new Array<string>(shape.length);
  let acc = "1";
  for (let k = shape.length - 1; k >= 0; k--) {
    strides[k] = acc;
    acc = product(acc, shape[k]!);
  }
  return strides;
}

/**
 * Makes `js` cheap to repeat: atoms stay, anything else is stored in a `const` when `hoist` is
 * set (the layout is declared at a statement boundary) and parenthesised otherwise.
 */
function settle(ctx: EmitContext, js: string, hint: string, hoist: boolean): string {
  if (isAtom(js)) return js;
  if (!hoist) return `(${js})`;
  const name = ctx.names.fresh(hint);
  ctx.line(`const ${name} = ${js};`);
  return name;
}

/** Registers the layout of `buffer` stored in `array`, emitting consts for non-trivial strides. */
export function declareBufferLayout(ctx: EmitContext, buffer: Buffer, array: string, hoist = true): BufferLayout {
  const shape = buffer.shape.map((s, k) => settle(ctx, emitExpr(ctx, s), `${buffer.name}_n${k}`, hoist));
  const strides =
    buffer.strides.length === 0
      ? rowMajorStrides(shape).map((s, k) => settle(ctx, s, `${buffer.name}_s${k}`, hoist))
      : buffer.strides.map((s, k) => settle(ctx, emitExpr(ctx, s), `${buffer.name}_s${k}`, hoist));
  const offset = settle(ctx, emitExpr(ctx, buffer.elemOffset), `${buffer.name}_offset`, hoist);
  const layout: BufferLayout = { array, shape, strides, offset };
  ctx.setLayout(buffer, layout);
  return layout;
}

/** The layout of `buffer`; buffers met without a declaration view the array of their `data` var. */
function layoutOf(ctx: EmitContext, buffer: Buffer): BufferLayout {
  const known = ctx.layout(buffer);
  if (known !== undefined) return known;
  const array = ctx.arrayOf(buffer.data);
  if (array === undefined) {
    throw new ExecutionError(
      `buffer ${buffer.name} is accessed${ctx.where} but is not a parameter, not allocated by an enclosing ` +
        `block or Allocate, and shares storage with no such buffer`,
    );
  }
  return declareBufferLayout(ctx, buffer, array, false);
}

/** Number of elements an array must hold for `buffer`'s layout (JS snippet). */
export function storageSize(layout: BufferLayout, buffer: Buffer): string {
  if (buffer.strides.length === 0) return sum([layout.offset, layout.shape.reduce(product, "1")]);
  // The last element's index plus one.
  const span = layout.shape.map((n, k) => product(`(${n} - 1)`, layout.strides[k]!));
  return sum([layout.offset, ...span, "1"]);
}

function plainIndex(layout: BufferLayout, indexJs: readonly string[]): string {
  return sum([layout.offset, ...indexJs.map((i, k) => product(i, layout.strides[k]!))]);
}

/** `array[flat]`, the flat index passed through the `elementIndex` hook when there is one. */
function elementOf(
  ctx: EmitContext,
  buffer: Buffer,
  indices: readonly PrimExpr[],
  layout: BufferLayout,
  flat: string,
  access: "load" | "store",
  lane: number | undefined,
): string {
  const hook = ctx.hooks.elementIndex;
  return `${layout.array}[${hook === undefined ? flat : hook(ctx, buffer, indices, flat, access, lane)}]`;
}

/**
 * The JS lvalue of `buffer[indices]` for one lane (`lane`: undefined for a scalar access).
 * `indexJs` are the lane's index snippets. With
 * bounds checks, every index is compared with its dimension before the access, and a failure
 * reports the buffer, all indices and the shape.
 */
export function emitElementAccess(
  ctx: EmitContext,
  buffer: Buffer,
  indexExprs: readonly PrimExpr[],
  indexJs: readonly string[],
  access: "load" | "store",
  lane?: number,
): string {
  const layout = layoutOf(ctx, buffer);
  if (!ctx.boundsCheck) return elementOf(ctx, buffer, indexExprs, layout, plainIndex(layout, indexJs), access, lane);
  const needsCheck = indexExprs.map((e, k) => {
    const n = layout.shape[k]!;
    const known = ctx.checkProvenIndices ? undefined : indexRange(e, ctx.rangeOf);
    return !(known !== undefined && /^\d+$/.test(n) && known.lo >= 0 && known.hi < Number(n));
  });
  if (!needsCheck.includes(true)) return elementOf(ctx, buffer, indexExprs, layout, plainIndex(layout, indexJs), access, lane);
  const assignments: string[] = [];
  const checked = indexJs.map((js, k) => {
    if (isAtom(js) || !needsCheck[k]) return js;
    const t = ctx.temp(`i${k}`);
    assignments.push(`${t} = ${js}`);
    return t;
  });
  const failures = checked.flatMap((js, k) => {
    if (!needsCheck[k]) return [];
    const n = layout.shape[k]!;
    // `>>> 0` folds the `< 0` test into one comparison; only valid for indices within 32 bits.
    return bitsOf(indexExprs[k]!.dtype) <= 32 ? [`${js} >>> 0 >= ${n}`] : [`${js} < 0 || ${js} >= ${n}`];
  });
  const flat = sum([layout.offset, ...checked.map((i, k) => product(i, layout.strides[k]!))]);
  const site = ctx.sites.add({
    kind: "access",
    access,
    bufferName: buffer.name,
    text: describeAccess(buffer, indexExprs),
    where: ctx.where,
  });
  const check = `(${failures.join(" || ")}) && $oob(${site}, [${checked.join(", ")}], [${layout.shape.join(", ")}])`;
  return elementOf(ctx, buffer, indexExprs, layout, `(${[...assignments, check, flat].join(", ")})`, access, lane);
}

/**
 * `buffer = T.match_buffer(source[region])`: a view sharing the source's array. Its offset is the
 * source offset of the region's corner; its strides are the source's trailing strides. Variables
 * used as the view's shape, strides or offset are bound to the matched values.
 */
export function declareMatchBuffer(ctx: EmitContext, match: MatchBufferRegion): (() => void)[] {
  const { buffer, source } = match;
  const src = layoutOf(ctx, source.buffer);
  if (dtypeInfo(buffer.dtype).bits !== dtypeInfo(source.buffer.dtype).bits) {
    throw new ExecutionError(`match_buffer ${buffer.name}: dtype ${buffer.dtype} differs from ${source.buffer.dtype}`);
  }
  const dims = buffer.shape.length;
  const extra = source.region.length - dims;
  if (extra < 0) {
    throw new ExecutionError(
      `match_buffer ${buffer.name}: ${dims} dimensions cannot view a ${source.region.length}-dimensional region of ${source.buffer.name}`,
    );
  }
  const unbinders: (() => void)[] = [];
  const bindIfVar = (field: PrimExpr, js: string, hint: string): string => {
    if (field.kind === "Var" && !ctx.isBound(field)) {
      const { name, unbind } = ctx.bindVar(field);
      ctx.line(`const ${name} = ${js};`);
      unbinders.push(unbind);
      return name;
    }
    return settle(ctx, js, hint, true);
  };
  const corner = source.region.map((r, k) => product(settle(ctx, emitExpr(ctx, r.min), `${buffer.name}_min${k}`, true), src.strides[k]!));
  const offset = bindIfVar(buffer.elemOffset, sum([src.offset, ...corner]), `${buffer.name}_offset`);
  const strides = src.strides.slice(extra).map((s, k) => {
    const declared = buffer.strides[k];
    return declared === undefined ? s : bindIfVar(declared, s, `${buffer.name}_s${k}`);
  });
  const shape = buffer.shape.map((n, k) =>
    n.kind === "Var" && !ctx.isBound(n)
      ? bindIfVar(n, emitExpr(ctx, source.region[extra + k]!.extent), `${buffer.name}_n${k}`)
      : settle(ctx, emitExpr(ctx, n), `${buffer.name}_n${k}`, true),
  );
  ctx.setLayout(buffer, { array: src.array, shape, strides, offset });
  ctx.setArray(buffer.data, src.array);
  return unbinders;
}
