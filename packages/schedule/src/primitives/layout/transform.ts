/**
 * transform_layout (TVM's `layout_transformation.cc`): gives a buffer allocated by a block a new
 * layout `index_map(old indices) = new indices`, rewriting every access and region. The typical use
 * is a shared-memory tile stored transposed (`(i, k) => [k, i]`), so that each thread reads a
 * column of the original tile as one contiguous vector.
 *
 * Supported: buffers allocated by a block, and index maps that are bijections of the buffer's
 * index space (permutations, splits and fusions of axes), so no padding is needed. The buffer's
 * new shape is the extent of each result over the old index space.
 */
import {
  Analyzer,
  type Block,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
  type BufferStore,
  IRMutator,
  type IntervalSet,
  type MatchBufferRegion,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  add,
  detectIterMap,
  evalSet,
  intImm,
  intervalFromRange,
  printExpr,
  simplify,
  sub,
  substitute,
  withBuffer,
} from "@tessera/ir";
import { nthAccessRegion } from "../../analysis/buffer-access.js";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError } from "../../errors.js";
import { type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../../instruction.js";
import type { BlockEntry } from "../../state/tree-index.js";
import { allocationSite } from "../buffer-scope.js";
import { type IndexMap, indexMapFromAttr, indexMapToTs } from "./index-map.js";

const PRIMITIVE = "transform-layout";

/** The index map does not fit the buffer: wrong arity, not a bijection of its index space. */
export class TransformLayoutError extends ScheduleError {
  override name = "TransformLayoutError";
}

/** Which buffer of the block: `["read", i]`, `["write", i]`, or a buffer name the block accesses. */
export type BufferSpec = readonly ["read" | "write", number] | string;

function resolveBuffer(blk: BlockEntry, spec: unknown): Buffer {
  if (typeof spec === "string") {
    const found = [...blk.node.writes, ...blk.node.reads].find((r) => r.buffer.name === spec)?.buffer;
    if (found === undefined) {
      throw new TransformLayoutError(PRIMITIVE, `block ${blk.node.name} neither reads nor writes a buffer named "${spec}"`, [blk.node]);
    }
    return found;
  }
  if (Array.isArray(spec) && spec.length === 2 && (spec[0] === "read" || spec[0] === "write")) {
    return nthAccessRegion(PRIMITIVE, blk.node, spec[1], spec[0]).buffer;
  }
  throw new TransformLayoutError(PRIMITIVE, `the buffer must be ["read", index], ["write", index] or a buffer name, got ${JSON.stringify(spec)}`);
}

/** The new shape, after checking that `map` is a bijection of `buffer`'s index space onto it. */
function transformedShape(buffer: Buffer, map: IndexMap): PrimExpr[] {
  const where = `buffer ${buffer.name} of shape [${buffer.shape.map((d) => printExpr(d)).join(", ")}]`;
  if (map.params.length !== buffer.shape.length) {
    throw new TransformLayoutError(PRIMITIVE, `the index map takes ${map.params.length} indices but ${where} has ${buffer.shape.length} dimensions`);
  }
  if (!buffer.shape.every((d) => d.kind === "IntImm"))
    throw new TransformLayoutError(PRIMITIVE, `${where} has a symbolic shape; only constant shapes can be transformed`);
  const dom = new Map<Var, Range>(map.params.map((p, d) => [p, { min: intImm(0, p.dtype), extent: buffer.shape[d]! }]));
  const detected = detectIterMap(map.results, dom, undefined, { requireBijective: true });
  if (detected.errors.length > 0) {
    throw new TransformLayoutError(
      PRIMITIVE,
      `the index map is not a bijection of the index space of ${where} (padding is not supported): ${detected.errors[0]}`,
    );
  }
  const analyzer = new Analyzer();
  for (const [p, r] of dom) analyzer.bind(p, r);
  return map.results.map((r, d) => {
    const b = analyzer.constIntBound(r);
    if (b.min !== 0) throw new TransformLayoutError(PRIMITIVE, `result ${d} of the index map (${printExpr(r)}) starts at ${b.min}, not 0, on ${where}`);
    return intImm(b.max + 1, "int32");
  });
}

/** Rewrites every access to one buffer through the index map. */
class LayoutRewriter extends IRMutator {
  private readonly analyzer = new Analyzer();

  constructor(
    private readonly from: Buffer,
    private readonly to: Buffer,
    private readonly map: IndexMap,
  ) {
    super();
  }

  override mapBuffer(b: Buffer): Buffer {
    return b === this.from ? this.to : b;
  }

  private point(indices: readonly PrimExpr[]): PrimExpr[] {
    const binding = new Map<Var, PrimExpr>(this.map.params.map((p, d) => [p, indices[d]!]));
    return this.map.results.map((r) => simplify(substitute(r, binding)));
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const visited = super.visitBufferLoad(e) as BufferLoad;
    return e.buffer === this.from ? { ...visited, indices: this.point(visited.indices) } : visited;
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const visited = super.visitBufferStore(s) as BufferStore;
    return s.buffer === this.from ? { ...visited, indices: this.point(visited.indices) } : visited;
  }

  override visitRegion(r: BufferRegion): BufferRegion {
    const visited = super.visitRegion(r);
    if (r.buffer !== this.from) return visited;
    const dom = new Map<Var, IntervalSet>(this.map.params.map((p, d) => [p, intervalFromRange(visited.region[d]!, this.analyzer)]));
    const region = this.map.results.map((res, d): Range => {
      const set = evalSet(res, dom, this.analyzer);
      if (set.min.kind === "NegInf" || set.max.kind === "PosInf") return { min: intImm(0, "int32"), extent: this.to.shape[d]! };
      return { min: simplify(set.min), extent: simplify(add(sub(set.max, set.min), 1)) };
    });
    return { ...visited, region };
  }

  override visitMatchBuffer(m: MatchBufferRegion): MatchBufferRegion {
    if (m.source.buffer === this.from) {
      throw new TransformLayoutError(
        PRIMITIVE,
        `buffer ${this.from.name} is viewed by match_buffer ${m.buffer.name}, whose layout cannot follow the transform`,
      );
    }
    return super.visitMatchBuffer(m);
  }

  override visitBlock(b: Block): Block {
    const visited = super.visitBlock(b);
    const align = visited.annotations["buffer_dim_align"];
    if (align !== undefined && visited.writes.some((w) => w.buffer === this.to)) {
      throw new TransformLayoutError(
        PRIMITIVE,
        `block ${b.name} has a storage_align of ${this.from.name} for its old layout; call storageAlign after transformLayout`,
        [b],
      );
    }
    return visited;
  }
}

function transformLayout(ctx: PrimitiveContext, inputs: readonly unknown[], attrs: readonly unknown[]) {
  const blk = ctx.block(inputs[0], PRIMITIVE);
  const buffer = resolveBuffer(blk, attrs[0]);
  allocationSite(PRIMITIVE, blk, buffer);
  const map = indexMapFromAttr(attrs[1]);
  const shape = transformedShape(buffer, map);
  const next = withBuffer(buffer, { shape, strides: [] });
  ctx.commit(new LayoutRewriter(buffer, next, map).visitStmt(ctx.func.body));
  return { outputs: [] };
}

export const TRANSFORM_LAYOUT: InstructionKind = registerInstruction({
  name: "TransformLayout",
  method: "transformLayout",
  pure: false,
  singleOutput: false,
  attrNames: ["buffer", "index_map"],
  apply: (ctx, inputs, attrs) => transformLayout(ctx, inputs, attrs),
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}, ${indexMapToTs(attrs[1])}`,
});
