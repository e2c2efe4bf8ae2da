/**
 * The floating-point work of a function, estimated from its loop nest (TVM's `EstimateTIRFlops`):
 * every float arithmetic operation, comparison or math call in a statement counts once per lane,
 * times the trip count of the loops around it. A multiply-add is two operations, so a GEMM of
 * M×N×K counts 2·M·N·K. Block initialisations count like bodies; of an if-then-else the costlier
 * branch counts. A loop with a symbolic extent counts once (its trip count is unknown).
 */
import { type PrimExpr, type PrimFunc, type Stmt, IRVisitor, isFloat, lanesOf } from "@tessera/ir";

const COUNTED_OPS = new Set(["add", "sub", "mul", "div", "mod", "floordiv", "floormod", "min", "max", "eq", "ne", "lt", "le", "gt", "ge"]);

/** Float operations of one evaluation of an expression (no loops inside expressions). */
class ExprFlopCounter extends IRVisitor {
  flops = 0;

  override visitExpr(e: PrimExpr): void {
    if (e.kind === "Binary" && COUNTED_OPS.has(e.op) && isFloat(e.a.dtype)) this.flops += lanesOf(e.a.dtype);
    else if (e.kind === "Call" && isFloat(e.dtype)) this.flops += lanesOf(e.dtype);
    super.visitExpr(e);
  }
}

function exprFlops(...exprs: readonly PrimExpr[]): number {
  const counter = new ExprFlopCounter();
  for (const e of exprs) counter.visitExpr(e);
  return counter.flops;
}

function stmtFlops(s: Stmt): number {
  switch (s.kind) {
    case "BufferStore":
      return exprFlops(s.value, ...s.indices);
    case "SeqStmt":
      return s.seq.reduce((sum, c) => sum + stmtFlops(c), 0);
    case "IfThenElse":
      return exprFlops(s.condition) + Math.max(stmtFlops(s.thenCase), s.elseCase === undefined ? 0 : stmtFlops(s.elseCase));
    case "For": {
      const trips = s.extent.kind === "IntImm" ? s.extent.value : 1;
      return trips * stmtFlops(s.body);
    }
    case "While":
      // An unknown trip count counts once, as a symbolic loop extent does.
      return exprFlops(s.condition) + stmtFlops(s.body);
    case "Evaluate":
      return exprFlops(s.value);
    case "LetStmt":
      return exprFlops(s.value) + stmtFlops(s.body);
    case "Allocate":
    case "DeclBuffer":
    case "AttrStmt":
      return stmtFlops(s.body);
    case "BlockRealize": {
      const b = s.block;
      return (b.init === undefined ? 0 : stmtFlops(b.init)) + stmtFlops(b.body);
    }
  }
}

/** Estimated float operations of `func`; at least 1, as TVM's task scheduler takes it. */
export function estimateFlops(func: PrimFunc): number {
  return Math.max(1, stmtFlops(func.body));
}
