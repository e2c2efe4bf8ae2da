/**
 * `simplify`: arithmetic simplification of every expression of a function, knowing the range of
 * each loop and thread variable in scope. Conditions that simplify to a constant select their branch.
 */
import {
  Analyzer,
  type AttrStmt,
  type For,
  IRMutator,
  type PrimExpr,
  type PrimFunc,
  type Stmt,
  type Var,
  evaluate,
  intImm,
  sameExprStructure,
  withBody,
} from "@tessera/ir";
import type { Pass } from "../pass.js";

class Simplifier extends IRMutator {
  private readonly analyzer = new Analyzer();

  /** Simplifies a whole expression at once (the analyzer recurses by itself). */
  override visitExpr(e: PrimExpr): PrimExpr {
    if (e.kind === "IntImm" || e.kind === "FloatImm" || e.kind === "StringImm") return e;
    const simplified = this.analyzer.simplify(e);
    // Keep the original node when nothing changed, so unchanged subtrees stay shared.
    return sameExprStructure(simplified, e) ? e : simplified;
  }

  override visitFor(s: For): Stmt {
    const min = this.visitExpr(s.min);
    const extent = this.visitExpr(s.extent);
    this.bindRange(s.loopVar, min, extent);
    const body = this.visitStmt(s.body);
    return min === s.min && extent === s.extent && body === s.body ? s : { ...s, min, extent, body };
  }

  /**
   * Statements already simplified, with the facts' generation they were simplified under and
   * which they left unchanged: unrolled code repeats the same statement objects.
   */
  private readonly done = new Map<Stmt, { readonly generation: number; readonly result: Stmt }>();

  override visitStmt(s: Stmt): Stmt {
    const generation = this.analyzer.generation;
    const done = this.done.get(s);
    if (done !== undefined && done.generation === generation) return done.result;
    const result = this.simplifyStmt(s);
    if (this.analyzer.generation === generation) this.done.set(s, { generation, result });
    return result;
  }

  private simplifyStmt(s: Stmt): Stmt {
    if (s.kind === "AttrStmt") return this.visitAttr(s);
    const visited = super.visitStmt(s);
    if (visited.kind !== "IfThenElse" || visited.condition.kind !== "IntImm") return visited;
    if (visited.condition.value !== 0) return visited.thenCase;
    return visited.elseCase ?? evaluate(0);
  }

  private visitAttr(s: AttrStmt): Stmt {
    const value = this.visitExpr(s.value);
    if ((s.key === "thread_extent" || s.key === "virtual_thread") && s.node !== undefined) {
      this.bindRange(s.node, intImm(0, value.dtype), value);
    }
    const body = this.visitStmt(s.body);
    return value === s.value && body === s.body ? s : { ...s, value, body };
  }

  private bindRange(v: Var, min: PrimExpr, extent: PrimExpr): void {
    if (extent.kind === "IntImm" && extent.value <= 0) return;
    this.analyzer.bind(v, { min, extent }, true);
  }
}

export function simplifyFunc(func: PrimFunc): PrimFunc {
  const body = new Simplifier().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const simplifyPass: Pass = { name: "simplify", run: (func) => simplifyFunc(func) };
