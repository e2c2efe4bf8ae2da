/**
 * Variables a function uses without binding them (symbolic shapes such as `M`, or the variable of
 * a `T.Let` expression). TVM declares them at the top of the function as `M = T.int32()`.
 */
import type { Buffer } from "../buffer.js";
import type { BufferLoad, Var } from "../expr.js";
import { IRVisitor } from "../functor.js";
import type { PrimFunc } from "../func.js";
import type { Block, BufferRegion, BufferStore, For, Stmt } from "../stmt.js";

class FreeVarCollector extends IRVisitor {
  readonly bound = new Set<Var>();
  /** Used variables in order of first use. */
  readonly used = new Set<Var>();
  private readonly seenBuffers = new Set<Buffer>();

  override visitVar(v: Var): void {
    this.used.add(v);
  }

  visitBuffer(b: Buffer): void {
    if (this.seenBuffers.has(b)) return;
    this.seenBuffers.add(b);
    this.bound.add(b.data);
    for (const e of [...b.shape, ...b.strides, b.elemOffset]) this.visitExpr(e);
  }

  override visitBufferLoad(e: BufferLoad): void {
    this.visitBuffer(e.buffer);
    super.visitBufferLoad(e);
  }

  override visitBufferStore(s: BufferStore): void {
    this.visitBuffer(s.buffer);
    super.visitBufferStore(s);
  }

  override visitRegion(r: BufferRegion): void {
    this.visitBuffer(r.buffer);
    super.visitRegion(r);
  }

  override visitFor(s: For): void {
    this.bound.add(s.loopVar);
    super.visitFor(s);
  }

  override visitBlock(b: Block): void {
    for (const iv of b.iterVars) this.bound.add(iv.var);
    for (const buf of b.allocBuffers) this.visitBuffer(buf);
    for (const m of b.matchBuffers) this.visitBuffer(m.buffer);
    super.visitBlock(b);
  }

  override visitStmt(s: Stmt): void {
    switch (s.kind) {
      case "LetStmt":
        this.bound.add(s.variable);
        break;
      case "Allocate":
      case "DeclBuffer":
        this.visitBuffer(s.buffer);
        break;
      case "AttrStmt":
        if (s.node !== undefined) {
          if (s.key === "thread_extent" || s.key === "virtual_thread") this.bound.add(s.node);
          else this.visitVar(s.node);
        }
        break;
      default:
        break;
    }
    super.visitStmt(s);
  }
}

export function collectFreeVars(func: PrimFunc): Var[] {
  const c = new FreeVarCollector();
  for (const p of func.params) c.bound.add(p);
  for (const p of func.params) {
    const b = func.bufferMap.get(p);
    if (b !== undefined) c.visitBuffer(b);
  }
  c.visitStmt(func.body);
  return [...c.used].filter((v) => !c.bound.has(v));
}
