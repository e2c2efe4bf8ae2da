/**
 * swizzle_layout: an XOR-permuted (swizzled) physical layout of a shared-memory buffer, TVM's
 * "permuted layout" of its tensor-core schedules (`InjectPermutedLayout`) made a general index map.
 * The buffer keeps its logical shape and every access its logical indices, so cache reads,
 * compute_at, vectorize and tensorize (ldmatrix's 16×16 regions) see the plain layout; the map is
 * recorded on the block that writes the buffer (annotation `buffer_swizzle`) and applied to the
 * flat offsets by lowering (codegen's `injectBufferSwizzle`): vector stores (cp.async), scalar
 * accesses and ldmatrix row addresses alike, so writer and readers agree.
 *
 * The map must be a bijection of the buffer's index space onto itself, checked point by point,
 * here on buffers of up to 2^20 elements and, always, by lowering on the compacted tile (a cache
 * read's buffer has the operand's full shape until compaction), e.g. the 16-byte chunks of each row XOR-ed with the row:
 * `(r, c) => [r, bitwiseXor(floordiv(c, 8), floormod(r, 8)) * 8 + floormod(c, 8)]`. It replaces
 * padding: a block cannot have both a storage_align and a swizzle of one buffer.
 *
 * Instead of a map, `"permuted"` asks for TVM's permuted layout of a 2-D tile whatever its final
 * shape: `sharedSwizzle` of the compacted tile's rows, chosen by lowering. The search samples it
 * (MultiLevelTilingTensorCore), whose tile shapes change as decisions are mutated.
 */
import { type AttrValue, type Block, type PrimExpr, dtypeInfo, printExpr } from "@tessera/ir";
import { nthAccessRegion } from "../../analysis/buffer-access.js";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError } from "../../errors.js";
import { type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../../instruction.js";
import { replaceStmts } from "../../state/replace.js";
import { allocationSite } from "../buffer-scope.js";
import { sharedSwizzle } from "../../tensor-intrin/cuda/shared-swizzle.js";
import { type IndexMap, indexMapEvaluator, indexMapFromAttr, indexMapFromFn, indexMapToAttr, indexMapToTs } from "./index-map.js";

const PRIMITIVE = "swizzle-layout";
/** The block annotation: a list of [buffer_index, index map] pairs, one per swizzled write. */
export const BUFFER_SWIZZLE = "buffer_swizzle";
const BUFFER_DIM_ALIGN = "buffer_dim_align";
/** The named swizzle: `sharedSwizzle` of the compacted tile, resolved by lowering. */
export const PERMUTED_LAYOUT = "permuted";

/** The index map of the permuted layout of a 2-D tile with rows of `rowElements` elements of `elementBytes` bytes. */
export function permutedLayoutMap(rowElements: number, elementBytes: number): AttrValue {
  return indexMapToAttr(indexMapFromFn(sharedSwizzle(rowElements, elementBytes), 2)) as AttrValue;
}

/** Enough points for any shared tile (228 KiB of bytes), few enough to check each. */
const MAX_POINTS = 1 << 18;
/** The largest buffer the primitive checks itself; larger ones (full-size cache reads) are checked once compacted. */
const MAX_SCHEDULE_POINTS = 1 << 20;

/** The swizzle does not fit the buffer: wrong arity, a result outside the shape, not a bijection, or padding too. */
export class SwizzleLayoutError extends ScheduleError {
  override name = "SwizzleLayoutError";
}

/** Checks that `mapAttr` permutes the points of a buffer of constant `shape`; throws naming two points that collide or one that leaves it. */
export function checkSwizzle(where: string, shape: readonly number[], mapAttr: unknown, maxPoints = MAX_POINTS): void {
  const map = checkSwizzleArity(where, shape.length, mapAttr);
  const points = shape.reduce((a, b) => a * b, 1);
  if (points > maxPoints) throw new SwizzleLayoutError(PRIMITIVE, `${where} has ${points} elements; a swizzle is checked point by point, up to ${maxPoints}`);
  const evaluate = indexMapEvaluator(mapAttr);
  // Which images were seen, one byte per point; the point that reached an image first is found
  // again only when a second one does (the error's message names both).
  const seen = new Uint8Array(points);
  const index = new Array<number>(shape.length).fill(0);
  for (let n = 0; n < points; n++) {
    const image = evaluate(index);
    let flat = 0;
    for (let d = 0; d < shape.length; d++) {
      const x = image[d]!;
      if (!Number.isInteger(x) || x < 0 || x >= shape[d]!)
        throw new SwizzleLayoutError(
          PRIMITIVE,
          `the index map sends [${index.join(", ")}] to [${image.join(", ")}], outside ${where} (${map.results.map((r) => printExpr(r)).join(", ")})`,
        );
      flat = flat * shape[d]! + x;
    }
    if (seen[flat] === 1) {
      const earlier = firstPointTo(flat, shape, evaluate);
      throw new SwizzleLayoutError(
        PRIMITIVE,
        `the index map is not a bijection of ${where}: it sends both [${earlier.join(", ")}] and [${index.join(", ")}] to [${image.join(", ")}]`,
      );
    }
    seen[flat] = 1;
    nextPoint(index, shape);
  }
}

/** `index` moved to the next point of `shape` in row-major order (back to all zeros after the last). */
function nextPoint(index: number[], shape: readonly number[]): void {
  for (let d = shape.length - 1; d >= 0 && ++index[d]! === shape[d]!; d--) index[d] = 0;
}

/** The first point in row-major order whose image under `evaluate` has flat offset `flat` (one is known to). */
function firstPointTo(flat: number, shape: readonly number[], evaluate: (indices: readonly number[]) => number[]): number[] {
  const index = new Array<number>(shape.length).fill(0);
  for (;;) {
    const image = evaluate(index);
    if (image.reduce((f, x, d) => f * shape[d]! + x, 0) === flat) return index;
    nextPoint(index, shape);
  }
}

/** Checks the map takes and returns `ndim` indices; returns it. */
function checkSwizzleArity(where: string, ndim: number, mapAttr: unknown): IndexMap {
  const map = indexMapFromAttr(mapAttr);
  if (map.params.length !== ndim || map.results.length !== ndim)
    throw new SwizzleLayoutError(
      PRIMITIVE,
      `the index map takes ${map.params.length} and returns ${map.results.length} indices but ${where} has ${ndim} dimensions; a swizzle keeps the shape`,
    );
  return map;
}

type SwizzleEntry = readonly [number, AttrValue];

/** The block's swizzles, [buffer index, map] pairs (empty when it has none). */
export function blockSwizzles(block: Block): readonly SwizzleEntry[] {
  const v = block.annotations[BUFFER_SWIZZLE];
  return Array.isArray(v) ? (v as readonly SwizzleEntry[]) : [];
}

/** Checks an index map on the buffer's shape where it is small enough (planBufferSwizzle checks the compacted tile always). */
function checkMapOnBuffer(where: string, dims: readonly PrimExpr[], mapAttr: unknown): void {
  const shape = dims.map((d) => (d.kind === "IntImm" ? d.value : undefined));
  if (shape.some((d) => d === undefined)) throw new SwizzleLayoutError(PRIMITIVE, `${where} has a symbolic shape; only constant shapes can be swizzled`);
  const points = (shape as number[]).reduce((a, b) => a * b, 1);
  if (points <= MAX_SCHEDULE_POINTS) checkSwizzle(where, shape as number[], mapAttr, MAX_SCHEDULE_POINTS);
  else checkSwizzleArity(where, shape.length, mapAttr);
}

function swizzleLayout(ctx: PrimitiveContext, inputs: readonly unknown[], attrs: readonly unknown[]) {
  const blk = ctx.block(inputs[0], PRIMITIVE);
  const bufferIndex = ctx.value(attrs[0], PRIMITIVE, "buffer_index");
  const buffer = nthAccessRegion(PRIMITIVE, blk.node, bufferIndex, "write").buffer;
  allocationSite(PRIMITIVE, blk, buffer);
  const where = `buffer ${buffer.name} of shape [${buffer.shape.map((d) => printExpr(d)).join(", ")}]`;
  if (!buffer.scope.startsWith("shared"))
    throw new SwizzleLayoutError(PRIMITIVE, `${where} is in "${buffer.scope}" memory; only shared memory has banks to swizzle against`, [blk.node]);
  if (attrs[1] === PERMUTED_LAYOUT) {
    const bytes = dtypeInfo(buffer.dtype).bits / 8;
    if (buffer.shape.length < 2 || !Number.isInteger(16 / bytes))
      throw new SwizzleLayoutError(PRIMITIVE, `the permuted layout swizzles the 16-byte chunks of a 2-D tile's rows; ${where} of ${buffer.dtype} is not one`);
  } else checkMapOnBuffer(where, buffer.shape, attrs[1]);
  const aligned = blk.node.annotations[BUFFER_DIM_ALIGN];
  if (Array.isArray(aligned) && aligned.some((t) => Array.isArray(t) && t[0] === bufferIndex))
    throw new SwizzleLayoutError(PRIMITIVE, `block ${blk.node.name} pads ${buffer.name} with a storage_align; a swizzled layout replaces the padding`, [
      blk.node,
    ]);
  const list = blockSwizzles(blk.node).filter((e) => e[0] !== bufferIndex);
  const next: Block = { ...blk.node, annotations: { ...blk.node.annotations, [BUFFER_SWIZZLE]: [...list, [bufferIndex, attrs[1] as AttrValue]] } };
  ctx.commit(replaceStmts(ctx.func.body, new Map(), new Map([[blk.node, next]]), ctx.index));
  return { outputs: [] };
}

export const SWIZZLE_LAYOUT: InstructionKind = registerInstruction({
  name: "SwizzleLayout",
  method: "swizzleLayout",
  pure: false,
  singleOutput: false,
  attrNames: ["buffer_index", "index_map"],
  apply: (ctx, inputs, attrs) => swizzleLayout(ctx, inputs, attrs),
  formatArgs: (inputs, attrs) =>
    `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}, ${attrs[1] === PERMUTED_LAYOUT ? tsLiteral(attrs[1]) : indexMapToTs(attrs[1])}`,
});

/**
 * Whether the map keeps every run of `run` elements along the last axis that starts at a multiple
 * of `run` contiguous and in order (so a vector access or a 16-byte ldmatrix row stays one piece).
 */
export function swizzleRunsContiguous(shape: readonly number[], mapAttr: unknown, run: number): boolean {
  const last = shape.length - 1;
  if (run === 1) return true;
  if (shape[last]! % run !== 0) return false;
  const evaluate = indexMapEvaluator(mapAttr);
  const points = shape.reduce((a, b) => a * b, 1);
  const index = new Array<number>(shape.length).fill(0);
  for (let n = 0; n < points; n += run) {
    const start = evaluate(index);
    for (let t = 1; t < run; t++) {
      const image = evaluate([...index.slice(0, last), index[last]! + t]);
      if (image.some((x, d) => x !== start[d]! + (d === last ? t : 0))) return false;
    }
    index[last] = index[last]! + run;
    for (let d = last; d > 0 && index[d]! >= shape[d]!; d--) {
      index[d] = 0;
      index[d - 1] = index[d - 1]! + 1;
    }
  }
  return true;
}
