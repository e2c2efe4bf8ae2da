/**
 * set_scope and storage_align (TVM's `block_annotate.cc`): both act on a buffer the block
 * writes, named by its index in the block's writes, which must be allocated by a block.
 */
import { type AttrValue, type Block, type Buffer, IRMutator, type MatchBufferRegion, type StorageScope, withBuffer } from "@tessera/ir";
import { checkStorageScope, nthAccessRegion } from "../analysis/buffer-access.js";
import type { PrimitiveContext } from "../context.js";
import { ScheduleError } from "../errors.js";
import { type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../instruction.js";
import { replaceStmts } from "../state/replace.js";
import type { BlockEntry } from "../state/tree-index.js";

/** The buffer is a function parameter or a match_buffer view, not a block allocation. */
export class NonAllocatedBufferError extends ScheduleError {
  override name = "NonAllocatedBufferError";
}

/** storage_align's `factor` is not positive. */
export class StorageAlignInvalidFactorError extends ScheduleError {
  override name = "StorageAlignInvalidFactorError";
}

/** storage_align's `axis` is outside `[-ndim, ndim)`. */
export class StorageAlignAxisOutOfRangeError extends ScheduleError {
  override name = "StorageAlignAxisOutOfRangeError";
}

/** The block already has a `buffer_dim_align` annotation that is not a list of 4-integer tuples. */
export class StorageAlignInvalidAnnotationError extends ScheduleError {
  override name = "StorageAlignInvalidAnnotationError";
}

const BUFFER_DIM_ALIGN = "buffer_dim_align";
/** swizzleLayout's annotation (primitives/layout/swizzle.ts; not imported from there, which imports this module). */
const BUFFER_SWIZZLE = "buffer_swizzle";

/** The block (the given one or an ancestor) that allocates `buffer`, or NonAllocatedBufferError. */
export function allocationSite(primitive: string, blk: BlockEntry, buffer: Buffer): BlockEntry {
  for (let p: BlockEntry["parent"] = blk; p !== undefined; p = p.parent) {
    if (p.kind !== "block") continue;
    if (p.node.allocBuffers.includes(buffer)) return p;
    if (p.node.matchBuffers.some((m) => m.buffer === buffer)) break;
  }
  throw new NonAllocatedBufferError(
    primitive,
    `The input buffer ${buffer.name} is not allocated by a block. This means the buffer is either a function parameter or defined in \`match_buffer\` of a block.`,
  );
}

/** Replaces a buffer (and the match_buffer views of it) by copies in another scope. */
class ScopeSwitcher extends IRMutator {
  private readonly map = new Map<Buffer, Buffer>();

  constructor(buffer: Buffer, scope: StorageScope) {
    super();
    this.map.set(buffer, withBuffer(buffer, { scope }));
  }

  override mapBuffer(b: Buffer): Buffer {
    return this.map.get(b) ?? b;
  }

  override visitMatchBuffer(m: MatchBufferRegion): MatchBufferRegion {
    const source = this.visitRegion(m.source);
    if (source === m.source) return m;
    const view = withBuffer(m.buffer, { scope: source.buffer.scope });
    this.map.set(m.buffer, view);
    return { buffer: view, source };
  }
}

function setScope(ctx: PrimitiveContext, inputs: readonly unknown[], attrs: readonly unknown[]) {
  const blk = ctx.block(inputs[0], "set-scope");
  const buffer = nthAccessRegion("set-scope", blk.node, attrs[0], "write").buffer;
  if (buffer.scope === attrs[1]) return { outputs: [] };
  const scope = checkStorageScope("set-scope", attrs[1]);
  const site = allocationSite("set-scope", blk, buffer);
  const next = new ScopeSwitcher(buffer, scope).visitBlock(site.node);
  ctx.commit(replaceStmts(ctx.func.body, new Map(), new Map([[site.node, next]]), ctx.index));
  return { outputs: [] };
}

type AlignTuple = readonly [number, number, number, number];

function isAlignList(v: AttrValue): v is readonly AlignTuple[] {
  return Array.isArray(v) && v.every((t) => Array.isArray(t) && t.length === 4 && t.every((x) => typeof x === "number" && Number.isInteger(x)));
}

function storageAlign(ctx: PrimitiveContext, inputs: readonly unknown[], attrs: readonly unknown[]) {
  const primitive = "storage-align";
  const blk = ctx.block(inputs[0], primitive);
  const [bufferIndex, axisIn, factor, offset] = attrs.map((a, i) => ctx.value(a, primitive, ["buffer_index", "axis", "factor", "offset"][i]!));
  const buffer = nthAccessRegion(primitive, blk.node, bufferIndex, "write").buffer;
  if (factor! <= 0) {
    throw new StorageAlignInvalidFactorError(
      primitive,
      `The input \`factor\` of storage_align is expected to be a positive number. However, the input \`factor\` is ${factor}, which is out of the expected range.`,
    );
  }
  const ndim = buffer.shape.length;
  if (axisIn! < -ndim || axisIn! >= ndim) {
    throw new StorageAlignAxisOutOfRangeError(
      primitive,
      `The buffer to set storage alignment of, ${buffer.name}, has ${ndim} dimension(s), so \`axis\` is required to be in [${-ndim}, ${ndim}) for storage_align. However, the input \`axis\` is ${axisIn}, which is out of the expected range.`,
    );
  }
  const axis = axisIn! < 0 ? axisIn! + ndim : axisIn!;
  allocationSite(primitive, blk, buffer);
  const swizzled = blk.node.annotations[BUFFER_SWIZZLE];
  if (Array.isArray(swizzled) && swizzled.some((e) => Array.isArray(e) && e[0] === bufferIndex))
    throw new StorageAlignInvalidAnnotationError(primitive, `block ${blk.node.name} swizzles the layout of ${buffer.name}; a swizzled layout is not padded`, [
      blk.node,
    ]);
  const existing = blk.node.annotations[BUFFER_DIM_ALIGN];
  if (existing !== undefined && !isAlignList(existing)) {
    throw new StorageAlignInvalidAnnotationError(
      primitive,
      `The block annotation for storage align is expected to be an array of 4-integer-tuples (buffer_index, axis, factor, offset). However, the annotation "${BUFFER_DIM_ALIGN}" of block ${blk.node.name} is ${JSON.stringify(existing)}.`,
      [blk.node],
    );
  }
  const tuple: AlignTuple = [bufferIndex!, axis, factor!, offset!];
  const list = [...((existing as readonly AlignTuple[] | undefined) ?? [])];
  const at = list.findIndex((t) => t[0] === bufferIndex && t[1] === axis);
  if (at >= 0) list[at] = tuple;
  else list.push(tuple);
  const next: Block = { ...blk.node, annotations: { ...blk.node.annotations, [BUFFER_DIM_ALIGN]: list } };
  ctx.commit(replaceStmts(ctx.func.body, new Map(), new Map([[blk.node, next]]), ctx.index));
  return { outputs: [] };
}

export const SET_SCOPE: InstructionKind = registerInstruction({
  name: "SetScope",
  method: "setScope",
  pure: false,
  singleOutput: false,
  attrNames: ["buffer_index", "storage_scope"],
  apply: (ctx, inputs, attrs) => setScope(ctx, inputs, attrs),
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}, ${tsLiteral(attrs[1])}`,
});

export const STORAGE_ALIGN: InstructionKind = registerInstruction({
  name: "StorageAlign",
  method: "storageAlign",
  pure: false,
  singleOutput: false,
  attrNames: ["buffer_index", "axis", "factor", "offset"],
  apply: (ctx, inputs, attrs) => storageAlign(ctx, inputs, attrs),
  formatArgs: (inputs, attrs) => [renderInput(inputs[0]!), ...attrs.map((a) => tsLiteral(a))].join(", "),
});
