/**
 * `removeNoOp` (TVM RemoveNoOp): statements that do nothing are removed.
 * - `T.evaluate(e)` of a pure `e`, and sequences of such statements;
 * - a loop of extent 0, or whose body does nothing;
 * - nothing inside a `let` (the binding stays, as TVM keeps its flat `Bind`);
 * - an `if` with no effect in either branch; an empty then-branch turns the condition round;
 * - an attribute, allocation or buffer declaration around nothing;
 * - a store of a buffer element to itself (`A[i] = A[i]`).
 * TVM's dead-store elimination under `max_simplification_steps` is not implemented (a deviation:
 * docs/architecture/tvm-deviations-lowering.md). Usable before or after lowerOpaqueBlock.
 */
import { type BufferStore, type For, type IfThenElse, IRMutator, type PrimFunc, type Stmt, evaluate, not, sameExprStructure, withBody } from "@tessera/ir";
import type { Pass } from "../pass.js";
import { isNoOp, isPure, isSelfCopy } from "../util/no-op.js";

const NOTHING: Stmt = evaluate(0);

class NoOpRemover extends IRMutator {
  override visitStmt(s: Stmt): Stmt {
    const visited = super.visitStmt(s);
    switch (visited.kind) {
      case "SeqStmt":
        return this.sequence(visited.seq);
      case "For":
        return this.loop(visited);
      case "IfThenElse":
        return this.branch(visited);
      case "AttrStmt":
      case "Allocate":
      case "DeclBuffer":
        return isNoOp(visited.body) ? NOTHING : visited;
      case "BufferStore":
        return isSelfCopy(visited) ? NOTHING : visited;
      default:
        return visited;
    }
  }

  private sequence(seq: readonly Stmt[]): Stmt {
    const flat = seq.some((x) => x.kind === "SeqStmt") ? seq.flatMap((x) => (x.kind === "SeqStmt" ? x.seq : [x])) : seq;
    const kept = flat.filter((x) => !isNoOp(x));
    if (kept.length === 0) return NOTHING;
    if (kept.length === 1) return kept[0]!;
    return kept.length === seq.length && flat === seq ? { kind: "SeqStmt", seq } : { kind: "SeqStmt", seq: kept };
  }

  private loop(s: For): Stmt {
    const empty = s.extent.kind === "IntImm" && s.extent.value <= 0;
    return empty || isNoOp(s.body) ? NOTHING : s;
  }

  private branch(s: IfThenElse): Stmt {
    const thenEmpty = isNoOp(s.thenCase);
    const elseEmpty = s.elseCase === undefined || isNoOp(s.elseCase);
    if (thenEmpty && elseEmpty) return isPure(s.condition) ? NOTHING : evaluate(s.condition);
    if (thenEmpty) return { kind: "IfThenElse", condition: not(s.condition), thenCase: s.elseCase!, elseCase: undefined };
    if (elseEmpty && s.elseCase !== undefined) return { ...s, elseCase: undefined };
    return s;
  }
}

export function removeNoOp(func: PrimFunc): PrimFunc {
  const body = new NoOpRemover().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const removeNoOpPass: Pass = { name: "removeNoOp", run: (func) => removeNoOp(func) };
