/**
 * Variables a function uses without binding them (symbolic shapes such as `M`, or the variable of
 * a `T.Let` expression). TVM declares them at the top of the function as `M = T.int32()`.
 */
import type { Buffer } from "../buffer.js";
import type { BufferLoad, Var } from "../expr.js";
import { IRVisitor } from "../functor.js";
import type { PrimFunc } from "../func.js";
import { type Block, type BufferRegion, type BufferStore, type For, type Stmt, THREAD_ID_KEY } from "../stmt.js";

class FreeVarCollector extends IRVisitor {
  /** `implicitElemOffsets`: a match_buffer's fresh offset variable is defined by it (today's dialect). */
  constructor(private readonly implicitElemOffsets = false) {
    super();
  }

  readonly bound = new Set<Var>();
  /** Used variables in order of first use. */
  readonly used = new Set<Var>();
  private readonly seenBuffers = new Set<Buffer>();
  /** Buffers some statement or parameter declares. */
  readonly declaredBuffers = new Set<Buffer>();
  /** Buffers accessed, in order of first access. */
  readonly accessedBuffers = new Set<Buffer>();

  override visitVar(v: Var): void {
    this.used.add(v);
  }

  /** `ownsData`: the declaration binds the buffer's data pointer (all but a `DeclBuffer` over a given pointer). */
  declare(b: Buffer, ownsData = true): void {
    this.declaredBuffers.add(b);
    this.visitBuffer(b, ownsData);
  }

  /** A match_buffer's fresh offset variable with an offset_factor is defined by it (printed implicitly). */
  declareMatched(b: Buffer): void {
    const offset = b.elemOffset;
    if (this.implicitElemOffsets && offset.kind === "Var" && b.offsetFactor !== 0 && !this.used.has(offset)) this.bound.add(offset);
    this.declare(b);
  }

  visitBuffer(b: Buffer, ownsData = true): void {
    if (this.seenBuffers.has(b)) return;
    this.seenBuffers.add(b);
    if (ownsData) this.bound.add(b.data);
    else this.used.add(b.data);
    for (const e of [...b.shape, ...b.strides, b.elemOffset]) this.visitExpr(e);
  }

  override visitBufferLoad(e: BufferLoad): void {
    this.accessedBuffers.add(e.buffer);
    this.visitBuffer(e.buffer);
    super.visitBufferLoad(e);
  }

  override visitBufferStore(s: BufferStore): void {
    this.accessedBuffers.add(s.buffer);
    this.visitBuffer(s.buffer);
    super.visitBufferStore(s);
  }

  override visitRegion(r: BufferRegion): void {
    this.accessedBuffers.add(r.buffer);
    this.visitBuffer(r.buffer);
    super.visitRegion(r);
  }

  override visitFor(s: For): void {
    this.bound.add(s.loopVar);
    super.visitFor(s);
  }

  override visitBlock(b: Block): void {
    for (const iv of b.iterVars) this.bound.add(iv.var);
    for (const buf of b.allocBuffers) this.declare(buf);
    for (const m of b.matchBuffers) this.declareMatched(m.buffer);
    super.visitBlock(b);
  }

  override visitStmt(s: Stmt): void {
    switch (s.kind) {
      case "LetStmt":
        this.bound.add(s.variable);
        break;
      case "Allocate":
        this.bound.add(s.buffer.data);
        this.declare(s.buffer);
        break;
      case "DeclBuffer":
        this.declare(s.buffer, false);
        break;
      case "AttrStmt":
        if (s.node !== undefined) {
          if (s.key === "thread_extent" || s.key === "virtual_thread" || s.key === THREAD_ID_KEY) this.bound.add(s.node);
          else this.visitVar(s.node);
        }
        break;
      default:
        break;
    }
    super.visitStmt(s);
  }
}

function collect(func: PrimFunc, implicitElemOffsets = false): FreeVarCollector {
  const c = new FreeVarCollector(implicitElemOffsets);
  for (const p of func.params) c.bound.add(p);
  for (const p of func.params) {
    const b = func.bufferMap.get(p);
    if (b !== undefined) c.declareMatched(b);
  }
  c.visitStmt(func.body);
  return c;
}

export function collectFreeVars(func: PrimFunc, opts: { readonly implicitElemOffsets?: boolean } = {}): Var[] {
  const c = collect(func, opts.implicitElemOffsets);
  return [...c.used].filter((v) => !c.bound.has(v));
}

/** Buffers accessed but declared nowhere in the function: printed as `X = T.Buffer(...)` first. */
export function collectFreeBuffers(func: PrimFunc): Buffer[] {
  const c = collect(func);
  return [...c.accessedBuffers].filter((b) => !c.declaredBuffers.has(b));
}
