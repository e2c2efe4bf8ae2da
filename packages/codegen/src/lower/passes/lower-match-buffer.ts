/**
 * `lowerMatchBuffer` (TVM LowerMatchBuffer): every `match_buffer` of a block is removed, and the
 * matched buffer's uses become uses of its source. An access `sub[i, j]` becomes
 * `A[min_0 + i, min_1 + j]` (source dimensions the view leaves out on the left have extent 1 and
 * contribute their minimum); a region of the view becomes the corresponding source region.
 * The view's fields are bound to the source's: `data` to the source's data, `elem_offset` to the
 * flat offset of the region's first element, `strides` to the source's (row-major when it has
 * none), `shape` to the region's extents. A field that is a variable declared for the view is
 * replaced by its value everywhere; any other field (a constant, or a variable defined outside:
 * a parameter, a loop variable, one bound earlier to another value) must provably equal its value,
 * otherwise the pass raises a LoweringError naming the field (as TVM raises).
 */
import {
  Analyzer,
  type Block,
  type Buffer,
  type BufferLoad,
  type BufferRegion,
  type BufferStore,
  IRMutator,
  type MatchBufferRegion,
  type PrimExpr,
  type PrimFunc,
  type Range,
  type Stmt,
  type Var,
  add,
  forEachStmt,
  intImm,
  mul,
  printExpr,
  withBody,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";
import { stridesOf } from "./flatten-buffer.js";

const PASS = "lowerMatchBuffer";

/** A matched view: its source buffer and the region's ranges (already in terms of the source). */
interface View {
  readonly source: Buffer;
  readonly region: readonly Range[];
}

class MatchBufferLowerer extends IRMutator {
  private readonly analyzer = new Analyzer();
  private readonly views = new Map<Buffer, View>();
  /** Variables of view fields, replaced by their values. */
  private readonly bound = new Map<Var, PrimExpr>();
  private readonly dataOf = new Map<Var, Var>();

  /** Variables defined outside match_buffer fields: parameters, loop and block variables. */
  constructor(private readonly defined: ReadonlySet<Var>) {
    super();
  }

  override visitVar(v: Var): PrimExpr {
    return this.bound.get(v) ?? this.dataOf.get(v) ?? v;
  }

  override visitBlock(b: Block): Block {
    for (const m of b.matchBuffers) this.match(m, b.name);
    return super.visitBlock({ ...b, matchBuffers: [] });
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const target = this.sourceAccess(e.buffer, e.indices);
    return target === undefined ? super.visitBufferLoad(e) : { kind: "BufferLoad", dtype: e.dtype, ...target };
  }

  override visitBufferStore(s: BufferStore): Stmt {
    const target = this.sourceAccess(s.buffer, s.indices);
    return target === undefined ? super.visitBufferStore(s) : { kind: "BufferStore", value: this.visitExpr(s.value), ...target };
  }

  /** The source buffer and indices of an access to a view; undefined for other buffers. */
  private sourceAccess(buffer: Buffer, indices: readonly PrimExpr[]): { buffer: Buffer; indices: PrimExpr[] } | undefined {
    const view = this.views.get(buffer);
    if (view === undefined) return undefined;
    return {
      buffer: view.source,
      indices: this.sourceIndices(
        view,
        indices.map((i) => this.visitExpr(i)),
      ),
    };
  }

  override visitRegion(r: BufferRegion): BufferRegion {
    const visited = super.visitRegion(r);
    const view = this.views.get(r.buffer);
    return view === undefined ? visited : { buffer: view.source, region: this.sourceRegion(view, visited.region) };
  }

  private sourceIndices(view: View, indices: readonly PrimExpr[]): PrimExpr[] {
    const lead = view.region.length - indices.length;
    return view.region.map((r, d) => (d < lead ? r.min : this.analyzer.simplify(add(r.min, indices[d - lead]!))));
  }

  private sourceRegion(view: View, region: readonly Range[]): Range[] {
    const lead = view.region.length - region.length;
    return view.region.map((r, d) => (d < lead ? r : { min: this.analyzer.simplify(add(r.min, region[d - lead]!.min)), extent: region[d - lead]!.extent }));
  }

  private match(m: MatchBufferRegion, block: string): void {
    // The source may itself be a view of an enclosing block.
    const source = this.visitRegion(m.source);
    const target = m.buffer;
    const where = `match_buffer ${target.name} of block ${block}`;
    if (source.region.length < target.shape.length) {
      throw new LoweringError(PASS, `${where}: the view has ${target.shape.length} dimensions, its source region ${source.region.length}`);
    }
    const lead = source.region.length - target.shape.length;
    const src = source.buffer;
    this.dataOf.set(target.data, src.data);
    const srcStrides = stridesOf(src);
    const offset = source.region.reduce<PrimExpr>((acc, r, d) => add(acc, mul(r.min, srcStrides[d]!)), src.elemOffset);
    // With an offset_factor and no elem_offset, TVM declares a fresh offset variable (as our parser
    // does for a block's match_buffer, bound below); a view built in code may leave the constant 0
    // there, which then stands for "any offset".
    const freeOffset = target.offsetFactor > 0 && target.elemOffset.kind === "IntImm" && target.elemOffset.value === 0;
    if (!freeOffset) this.bind(target.elemOffset, offset, `${where}: elem_offset`);
    if (target.strides.length > 0) {
      target.strides.forEach((s, d) => this.bind(s, srcStrides[d + lead]!, `${where}: strides[${d}]`));
    }
    target.shape.forEach((n, d) => this.bind(n, source.region[d + lead]!.extent, `${where}: shape[${d}]`));
    for (let d = 0; d < lead; d++) {
      if (!this.analyzer.canProveEqual(source.region[d]!.extent, intImm(1, source.region[d]!.extent.dtype))) {
        throw new LoweringError(PASS, `${where}: source dimension ${d} is left out of the view but has extent ${printExpr(source.region[d]!.extent)}, not 1`);
      }
    }
    this.views.set(target, { source: src, region: source.region });
  }

  /** Binds a view field to its value, or checks that it equals it. */
  private bind(field: PrimExpr, valueRaw: PrimExpr, what: string): void {
    const value = this.analyzer.simplify(valueRaw);
    if (field.kind === "Var" && !this.defined.has(field)) {
      const earlier = this.bound.get(field);
      if (earlier === undefined) {
        this.bound.set(field, value);
        return;
      }
      if (this.analyzer.canProveEqual(earlier, value)) return;
      throw new LoweringError(PASS, `${what} is ${field.name}, bound before to ${printExpr(earlier)}, here to ${printExpr(value)}`);
    }
    const declared = this.visitExpr(field);
    if (!this.analyzer.canProveEqual(declared, value)) {
      throw new LoweringError(PASS, `${what} is declared ${printExpr(field)} but the source region gives ${printExpr(value)}`);
    }
  }
}

function definedVars(func: PrimFunc): Set<Var> {
  const defined = new Set<Var>(func.params);
  forEachStmt(func.body, (s) => {
    if (s.kind === "For") defined.add(s.loopVar);
    if (s.kind === "LetStmt") defined.add(s.variable);
    if (s.kind === "BlockRealize") for (const iv of s.block.iterVars) defined.add(iv.var);
  });
  for (const b of func.bufferMap.values()) {
    for (const e of [...b.shape, ...b.strides, b.elemOffset]) if (e.kind === "Var") defined.add(e);
  }
  return defined;
}

/** Whether any block of the function declares a match_buffer (the pass has nothing to do otherwise). */
function hasMatchBuffers(func: PrimFunc): boolean {
  let found = false;
  forEachStmt(func.body, (s) => {
    if (found) return false;
    if (s.kind === "BlockRealize" && s.block.matchBuffers.length > 0) found = true;
    return !found;
  });
  return found;
}

export function lowerMatchBuffer(func: PrimFunc): PrimFunc {
  if (!hasMatchBuffers(func)) return func;
  const body = new MatchBufferLowerer(definedVars(func)).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const lowerMatchBufferPass: Pass = { name: PASS, run: (func) => lowerMatchBuffer(func) };
