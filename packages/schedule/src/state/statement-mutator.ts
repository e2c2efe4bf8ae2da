/**
 * A mutator for rewrites that only restructure statements (replace, copy or re-tag loops and
 * blocks) and never change an expression or a buffer region: it does not walk into expressions,
 * stores, regions or iterator domains, which are most of the nodes of a loop nest. Subclasses that
 * rewrite any of those must extend `IRMutator` instead.
 */
import { type BufferRegion, type BufferStore, IRMutator, type IterVar, type MatchBufferRegion, type PrimExpr, type Range, type Stmt } from "@tessera/ir";

export class StatementMutator extends IRMutator {
  override visitExpr(e: PrimExpr): PrimExpr {
    return e;
  }

  override visitBufferStore(s: BufferStore): Stmt {
    return s;
  }

  override visitRange(r: Range): Range {
    return r;
  }

  override visitRegion(r: BufferRegion): BufferRegion {
    return r;
  }

  override visitIterVar(iv: IterVar): IterVar {
    return iv;
  }

  override visitMatchBuffer(m: MatchBufferRegion): MatchBufferRegion {
    return m;
  }
}
