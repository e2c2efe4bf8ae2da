/** Whether an expression reads given variables or buffers (by their `data` variable). */
import { type BufferLoad, IRVisitor, type PrimExpr, type Var } from "@tessera/ir";

/** Does `e` read a variable or buffer of `vars`? */
export function readsAny(e: PrimExpr, vars: ReadonlySet<Var>): boolean {
  return new ReadsAny(vars).test(e);
}

class ReadsAny extends IRVisitor {
  private found = false;

  constructor(private readonly vars: ReadonlySet<Var>) {
    super();
  }

  test(e: PrimExpr): boolean {
    this.visitExpr(e);
    return this.found;
  }

  override visitExpr(e: PrimExpr): void {
    if (!this.found) super.visitExpr(e);
  }

  override visitVar(v: Var): void {
    if (this.vars.has(v)) this.found = true;
  }

  override visitBufferLoad(e: BufferLoad): void {
    if (this.vars.has(e.buffer.data)) this.found = true;
    else super.visitBufferLoad(e);
  }
}
