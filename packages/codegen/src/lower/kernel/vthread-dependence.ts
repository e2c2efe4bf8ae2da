/**
 * What in a virtual thread's body depends on the virtual thread's index (TVM's
 * VarTouchedAnalysis). A loop variable depends on it through its bounds, a `let` variable through
 * its value, a buffer (named by its `data` variable) through the values and indices stored into
 * it or its shape; dependence spreads along chains of these, wherever they occur in the body (a
 * buffer stored from a dependent buffer depends too, even if the load comes later in the text).
 *
 * Unlike TVM, a definition also depends on the `if` conditions and loops around it: a register
 * zeroed only where `vthread_x * 32 + i < n` holds differs between virtual threads even though
 * the stored value does not mention the virtual thread. Everything that depends on nothing of the
 * virtual thread holds one value for all of them, so the statements computing it need to run once.
 */
import { type BufferLoad, type BufferStore, type For, IRVisitor, type PrimExpr, type Stmt, type Var } from "@tessera/ir";

/** The variables and buffer `data` variables of `body` that depend on `vthread` (itself included). */
export function virtualThreadDependents(body: Stmt, vthread: Var): ReadonlySet<Var> {
  const graph = new DefinitionGraph();
  graph.visitStmt(body);
  const dependent = new Set<Var>([vthread]);
  const pending = [vthread];
  for (let v = pending.pop(); v !== undefined; v = pending.pop()) {
    for (const next of graph.definedFrom.get(v) ?? []) {
      if (dependent.has(next)) continue;
      dependent.add(next);
      pending.push(next);
    }
  }
  return dependent;
}

/** Edges `source → defined`: `defined` is computed from `source` (or under a condition on it). */
class DefinitionGraph extends IRVisitor {
  readonly definedFrom = new Map<Var, Var[]>();
  /** The variable whose definition is being read. */
  private defining: Var | undefined;
  /** Variables read by the conditions and loops around the current statement. */
  private readonly control: Var[][] = [];

  override visitBufferStore(s: BufferStore): void {
    this.define(s.buffer.data, [s.value, ...s.indices]);
  }

  override visitFor(s: For): void {
    this.define(s.loopVar, [s.min, s.extent]);
    this.underControl([s.loopVar], () => this.visitStmt(s.body));
  }

  override visitStmt(s: Stmt): void {
    switch (s.kind) {
      case "IfThenElse": {
        const readByCondition = new VarReads();
        readByCondition.visitExpr(s.condition);
        this.underControl(readByCondition.vars, () => {
          this.visitStmt(s.thenCase);
          if (s.elseCase !== undefined) this.visitStmt(s.elseCase);
        });
        return;
      }
      case "While": {
        const readByCondition = new VarReads();
        readByCondition.visitExpr(s.condition);
        this.underControl(readByCondition.vars, () => this.visitStmt(s.body));
        return;
      }
      case "LetStmt":
        this.define(s.variable, [s.value]);
        break;
      case "Allocate":
        this.define(s.buffer.data, s.buffer.shape);
        break;
    }
    super.visitStmt(s);
  }

  override visitVar(v: Var): void {
    if (this.defining !== undefined) this.edge(v, this.defining);
  }

  override visitBufferLoad(e: BufferLoad): void {
    if (this.defining !== undefined) this.edge(e.buffer.data, this.defining);
    super.visitBufferLoad(e);
  }

  private underControl(vars: Var[], visit: () => void): void {
    this.control.push(vars);
    visit();
    this.control.pop();
  }

  private define(defined: Var, sources: readonly PrimExpr[]): void {
    this.defining = defined;
    for (const e of sources) this.visitExpr(e);
    this.defining = undefined;
    for (const vars of this.control) for (const v of vars) this.edge(v, defined);
  }

  private edge(source: Var, defined: Var): void {
    if (source === defined) return;
    const list = this.definedFrom.get(source);
    if (list === undefined) this.definedFrom.set(source, [defined]);
    else list.push(defined);
  }
}

/** The variables and buffer `data` variables an expression reads. */
class VarReads extends IRVisitor {
  readonly vars: Var[] = [];

  override visitVar(v: Var): void {
    this.vars.push(v);
  }

  override visitBufferLoad(e: BufferLoad): void {
    this.vars.push(e.buffer.data);
    super.visitBufferLoad(e);
  }
}
