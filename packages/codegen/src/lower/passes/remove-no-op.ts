/**
 * `removeNoOp` (TVM RemoveNoOp): statements that do nothing are removed.
 * - `T.evaluate(e)` of a pure `e`, and sequences of such statements;
 * - a loop of extent 0, or whose body does nothing;
 * - nothing inside a `let` (the binding stays, as TVM keeps its flat `Bind`);
 * - an `if` with no effect in either branch; an empty then-branch turns the condition round;
 * - an attribute, allocation or buffer declaration around nothing;
 * - a store of a buffer element to itself (`A[i] = A[i]`), also where the indices are equal
 *   only given the loop ranges, let bindings and enclosing conditions (`A[i] = A[0]` under
 *   `i == 0`).
 * TVM's dead-store elimination under `max_simplification_steps` is not implemented (a deviation:
 * docs/architecture/tvm-deviations-lowering.md). Usable before or after lowerOpaqueBlock.
 */
import { Analyzer, type BufferStore, type For, type IfThenElse, IRMutator, type PrimFunc, type Stmt, eq, evaluate, not, withBody } from "@tessera/ir";
import type { Pass } from "../pass.js";
import { FactProver, type KnownFacts, NO_FACTS, isStable, withCondition, withNegation } from "../util/known-facts.js";
import { isNoOp, isPure, isSelfCopy } from "../util/no-op.js";

const NOTHING: Stmt = evaluate(0);

class NoOpRemover extends IRMutator {
  private readonly analyzer = new Analyzer();
  private readonly prover = new FactProver(this.analyzer, false);
  private facts: KnownFacts = NO_FACTS;

  override visitStmt(s: Stmt): Stmt {
    const visited = this.visitInScope(s);
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
        return this.isSelfCopy(visited) ? NOTHING : visited;
      default:
        return visited;
    }
  }

  /** Visits `s` with what its loop, binding or branch condition tells about the statements inside. */
  private visitInScope(s: Stmt): Stmt {
    if (s.kind === "For" && !(s.extent.kind === "IntImm" && s.extent.value <= 0)) this.analyzer.bind(s.loopVar, { min: s.min, extent: s.extent }, true);
    if (s.kind === "LetStmt" && isStable(s.value)) this.analyzer.bind(s.variable, s.value, true);
    if (s.kind !== "IfThenElse") return super.visitStmt(s);
    const outer = this.facts;
    this.facts = withCondition(outer, s.condition);
    const thenCase = this.visitStmt(s.thenCase);
    this.facts = withNegation(outer, s.condition);
    const elseCase = s.elseCase === undefined ? undefined : this.visitStmt(s.elseCase);
    this.facts = outer;
    return thenCase === s.thenCase && elseCase === s.elseCase ? s : { ...s, thenCase, elseCase };
  }

  private isSelfCopy(s: BufferStore): boolean {
    if (isSelfCopy(s)) return true;
    const v = s.value;
    if (v.kind !== "BufferLoad" || v.buffer !== s.buffer || v.indices.length !== s.indices.length) return false;
    return v.indices.every((x, i) => {
      const y = s.indices[i]!;
      return this.analyzer.canProveEqual(x, y) || this.prover.decide(eq(x, y), this.facts) === true;
    });
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
