/**
 * TVM's RewriteLayout for the CPU target: read-only parameters of a tiled block are packed, at the start
 * of the function, into the order of the block's loops (docs/architecture/meta-schedule-notes.md); a
 * `LAYOUT_REWRITE` mask on the block (sampled by MultiLevelTilingCpu) limits it to the parameters it names.
 */
import { type Block, type BlockRealize, type PrimExpr, type PrimFunc, type Var, annotationInt, floordiv, floormod } from "@tessera/ir";
import { ScheduleError, type Schedule } from "@tessera/schedule";
import { LAYOUT_REWRITE, TILING_STRUCTURE } from "../schedule-utils/annotations.js";
import { blockNamesPostOrder, blockRealizeOf } from "../rules/multi-level-tiling/block-query.js";
import type { TuneContext } from "../tune-context.js";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";

/** One tile piece of an iterator: `floormod(floordiv(x, stride), extent)`, walked by loop `loop`. */
interface Piece {
  readonly loop: number;
  readonly stride: number;
  readonly extent: number;
}

/** `sum(coefficient × var)` of an affine integer expression (no constant term), or undefined. */
export function affineTerms(e: PrimExpr): Map<Var, number> | undefined {
  if (e.kind === "Var") return new Map([[e, 1]]);
  if (e.kind !== "Binary") return undefined;
  if (e.op === "add") {
    const a = affineTerms(e.a);
    const b = affineTerms(e.b);
    if (a === undefined || b === undefined) return undefined;
    for (const [v, c] of b) a.set(v, (a.get(v) ?? 0) + c);
    return a;
  }
  if (e.op === "mul") {
    const [term, scale] = e.b.kind === "IntImm" ? [e.a, e.b.value] : e.a.kind === "IntImm" ? [e.b, e.a.value] : [undefined, 0];
    const t = term === undefined ? undefined : affineTerms(term);
    if (t === undefined) return undefined;
    for (const [v, c] of t) t.set(v, c * scale);
    return t;
  }
  return undefined;
}

/** The pieces of a binding over the loops (outermost first), when it is a mixed-radix sum covering `domain`. */
function piecesOf(binding: PrimExpr, loopVars: readonly Var[], extents: readonly number[], domain: number): Piece[] | undefined {
  const terms = affineTerms(binding);
  if (terms === undefined) return undefined;
  const pieces: Piece[] = [];
  for (const [v, stride] of terms) {
    const loop = loopVars.indexOf(v);
    if (loop < 0 || stride <= 0) return undefined;
    // A unit loop adds nothing (its variable is always 0), whatever its coefficient.
    if (extents[loop] === 1) continue;
    pieces.push({ loop, stride, extent: extents[loop]! });
  }
  pieces.sort((a, b) => a.stride - b.stride);
  let expected = 1;
  for (const p of pieces) {
    if (p.stride !== expected) return undefined;
    expected *= p.extent;
  }
  return expected === domain ? pieces : undefined;
}

interface Rewrite {
  readonly readIndex: number;
  /** Per buffer dimension, its pieces. */
  readonly dims: readonly (readonly Piece[])[];
}

/** The operands of a tiled block to repack, with their pieces; empty when the block does not qualify. */
function rewritesOf(func: PrimFunc, realize: BlockRealize, loopVars: readonly Var[], extents: readonly number[]): Rewrite[] {
  const block: Block = realize.block;
  const iterPieces = new Map<Var, Piece[]>();
  for (const [k, iv] of block.iterVars.entries()) {
    const dom = iv.dom.extent;
    if (dom.kind !== "IntImm") return [];
    const pieces = piecesOf(realize.iterValues[k]!, loopVars, extents, dom.value);
    if (pieces === undefined) return [];
    iterPieces.set(iv.var, pieces);
  }
  const params = func.params.map((p) => func.bufferMap.get(p));
  const written = new Set(block.writes.map((w) => w.buffer));
  const mask = block.annotations[LAYOUT_REWRITE] === undefined ? undefined : annotationInt(block.annotations[LAYOUT_REWRITE]);
  const rewrites: Rewrite[] = [];
  block.reads.forEach((read, readIndex) => {
    const param = params.indexOf(read.buffer);
    if (param < 0 || written.has(read.buffer)) return;
    if (mask !== undefined && ((mask >> param) & 1) === 0) return;
    const dims: Piece[][] = [];
    for (const r of read.region) {
      const pieces = r.min.kind === "Var" && r.extent.kind === "IntImm" && r.extent.value === 1 ? iterPieces.get(r.min) : undefined;
      if (pieces === undefined) return;
      dims.push(pieces);
    }
    // Already in loop order (each dimension's pieces after the previous one's): nothing to gain.
    const order = dims.flatMap((ps) =>
      [...ps]
        .filter((p) => p.extent > 1)
        .sort((a, b) => b.stride - a.stride)
        .map((p) => p.loop),
    );
    if (order.every((l, i) => i === 0 || order[i - 1]! < l)) return;
    rewrites.push({ readIndex, dims });
  });
  return rewrites;
}

/** The new indices of an element: its pieces (of extent > 1), in the order of their loops. */
function layoutOf(dims: readonly (readonly Piece[])[]): (...indices: Var[]) => PrimExpr[] {
  const placed = dims.flatMap((pieces, dim) =>
    pieces.filter((p) => p.extent > 1).map((p) => ({ ...p, dim, outermost: p.stride === Math.max(...pieces.map((q) => q.stride)) })),
  );
  placed.sort((a, b) => a.loop - b.loop);
  return (...indices) =>
    placed.map((p) => {
      const x: PrimExpr = indices[p.dim]!;
      const shifted = p.stride === 1 ? x : floordiv(x, p.stride);
      return p.outermost ? shifted : floormod(shifted, p.extent);
    });
}

export class RewriteLayout implements Postproc {
  readonly name = "rewriteLayout";

  apply(sch: Schedule, _ctx: TuneContext): PostprocResult {
    for (const name of blockNamesPostOrder(sch.func)) {
      const realize = blockRealizeOf(sch.func, name);
      if (realize === undefined || realize.block.annotations[TILING_STRUCTURE] === undefined) continue;
      const block = sch.getBlock(name);
      const loops = sch.getLoops(block).map((l) => sch.get(l));
      if (loops.some((l) => l.extent.kind !== "IntImm")) continue;
      const rewrites = rewritesOf(
        sch.func,
        realize,
        loops.map((l) => l.loopVar),
        loops.map((l) => (l.extent as { value: number }).value),
      );
      // Last read first: a cache read replaces its operand in place, the others keep their indices.
      for (const { readIndex, dims } of [...rewrites].reverse()) {
        try {
          const pack = sch.cacheRead(block, readIndex, "global");
          sch.transformLayout(pack, ["write", 0], layoutOf(dims));
        } catch (err) {
          if (err instanceof ScheduleError) return rejected("rewriteLayout failed", err.message);
          throw err;
        }
      }
    }
    return POSTPROC_OK;
  }
}
