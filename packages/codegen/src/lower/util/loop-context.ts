/**
 * A visitor that knows, at every statement, the loops around it (outermost first) and the
 * conditions known to hold there (enclosing block predicates, `if` conditions in the then arm and
 * their negation in the else arm, likewise for the arms of an `if_then_else`).
 */
import { type BlockRealize, type For, IRVisitor, type PrimExpr, type Stmt } from "@tessera/ir";
import { facts, negatedConjuncts } from "./conditions.js";

export class LoopContextVisitor extends IRVisitor {
  protected readonly loops: For[] = [];
  protected readonly conditions: PrimExpr[] = [];

  override visitFor(s: For): void {
    this.visitExpr(s.min);
    this.visitExpr(s.extent);
    this.loops.push(s);
    this.visitStmt(s.body);
    this.loops.pop();
  }

  override visitStmt(s: Stmt): void {
    if (s.kind !== "IfThenElse") return super.visitStmt(s);
    this.visitExpr(s.condition);
    this.withConditions(facts(s.condition), () => this.visitStmt(s.thenCase));
    const elseCase = s.elseCase;
    if (elseCase !== undefined) this.withConditions(negatedConjuncts(s.condition), () => this.visitStmt(elseCase));
  }

  override visitExpr(e: PrimExpr): void {
    if (e.kind !== "Call" || e.op !== "if_then_else" || e.args.length !== 3) return super.visitExpr(e);
    const [cond, onTrue, onFalse] = e.args as [PrimExpr, PrimExpr, PrimExpr];
    this.visitExpr(cond);
    this.withConditions(facts(cond), () => this.visitExpr(onTrue));
    this.withConditions(negatedConjuncts(cond), () => this.visitExpr(onFalse));
  }

  override visitBlockRealize(s: BlockRealize): void {
    for (const v of s.iterValues) this.visitExpr(v);
    this.visitExpr(s.predicate);
    this.withConditions(facts(s.predicate), () => this.visitBlock(s.block));
  }

  private withConditions(added: readonly PrimExpr[], visit: () => void): void {
    this.conditions.push(...added);
    visit();
    this.conditions.length -= added.length;
  }
}
