/**
 * A copy of a PrimFunc with fresh definitions (TVM's `DeepCopy` of an intrinsic's implementation
 * before tensorize): every loop, block iterator, let variable and buffer (with the variables of
 * its data pointer, offset, strides and shape) is new, so that two tensorized blocks never define
 * the same variable or buffer.
 */
import { type Buffer, IRMutator, type IterVar, type PrimExpr, type PrimFunc, type Stmt, type Var, forEachStmt, variable } from "@tessera/ir";

export function freshCopy(func: PrimFunc): PrimFunc {
  const copier = new FreshCopier();
  const params = func.params.map((p) => copier.renew(p));
  const bufferMap = new Map([...func.bufferMap].map(([p, b]) => [copier.renew(p), copier.mapBuffer(b)] as const));
  return { ...func, params, bufferMap, body: copier.visitStmt(func.body) };
}

class FreshCopier extends IRMutator {
  private readonly vars = new Map<Var, Var>();
  private readonly buffers = new Map<Buffer, Buffer>();

  renew(v: Var): Var {
    let copy = this.vars.get(v);
    if (copy === undefined) {
      copy = variable(v.name, v.dtype);
      this.vars.set(v, copy);
    }
    return copy;
  }

  private renewIfVar(e: PrimExpr): PrimExpr {
    return e.kind === "Var" ? this.renew(e) : this.visitExpr(e);
  }

  override visitVar(v: Var): PrimExpr {
    return this.vars.get(v) ?? v;
  }

  override mapBuffer(b: Buffer): Buffer {
    let copy = this.buffers.get(b);
    if (copy === undefined) {
      copy = {
        ...b,
        data: this.renew(b.data),
        shape: b.shape.map((s) => this.renewIfVar(s)),
        strides: b.strides.map((s) => this.renewIfVar(s)),
        elemOffset: this.renewIfVar(b.elemOffset),
      };
      this.buffers.set(b, copy);
    }
    return copy;
  }

  override visitStmt(s: Stmt): Stmt {
    // Definitions first, so that their uses below see the new variables.
    forEachStmt(s, (x) => {
      if (x.kind === "For") this.renew(x.loopVar);
      if (x.kind === "LetStmt") this.renew(x.variable);
      if (x.kind === "BlockRealize") for (const iv of x.block.iterVars) this.renew(iv.var);
    });
    const out = super.visitStmt(s);
    if (out.kind === "For") return { ...out, loopVar: this.renew(out.loopVar) };
    if (out.kind === "LetStmt") return { ...out, variable: this.renew(out.variable) };
    return out;
  }

  override visitIterVar(iv: IterVar): IterVar {
    return { ...super.visitIterVar(iv), var: this.renew(iv.var) };
  }
}
