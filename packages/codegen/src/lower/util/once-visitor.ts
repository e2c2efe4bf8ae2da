/**
 * An IRVisitor that visits each statement and expression object once, for walks that only gather
 * sets: unrolled code repeats objects (a copy shares the subtrees that do not use the loop
 * variable), and walking a repeated subtree again would add nothing. Leaves (constants and
 * variables) are not remembered: they are cheap to visit and too many to keep. Subclasses see
 * each statement in `enterStmt` and each expression in `leaveExpr` (after its operands).
 */
import { IRVisitor, type PrimExpr, type Stmt } from "@tessera/ir";

export abstract class OnceVisitor extends IRVisitor {
  private readonly seen = new Set<Stmt | PrimExpr>();

  protected enterStmt(_s: Stmt): void {}

  protected leaveExpr(_e: PrimExpr): void {}

  override visitStmt(s: Stmt): void {
    if (this.seen.has(s)) return;
    this.seen.add(s);
    this.enterStmt(s);
    super.visitStmt(s);
  }

  override visitExpr(e: PrimExpr): void {
    if (e.kind !== "IntImm" && e.kind !== "FloatImm" && e.kind !== "Var") {
      if (this.seen.has(e)) return;
      this.seen.add(e);
    }
    super.visitExpr(e);
    this.leaveExpr(e);
  }
}
