/**
 * Pass 9, `unrollLoop`: a loop of kind `unrolled` with constant bounds is expanded — its body
 * repeated once per iteration with the loop variable replaced by the constant — when the expansion
 * stays small (extent × statements of the body ≤ `MAX_UNROLLED_STATEMENTS`). Larger loops, loops
 * of symbolic extent, and bodies that declare storage or variables (repeating those would declare
 * them twice in one C scope) stay loops of kind `unrolled`, printed with `#pragma unroll`.
 */
import { type For, IRMutator, type Stmt, seq, withBody } from "@tessera/ir";
import type { Pass } from "../pass.js";
import { instantiations } from "../util/instantiate.js";

export const MAX_UNROLLED_STATEMENTS = 512;

export const unrollLoopPass: Pass = {
  name: "unrollLoop",
  run(func) {
    const body = new LoopUnroller().visitStmt(func.body);
    return body === func.body ? func : withBody(func, body);
  },
};

class LoopUnroller extends IRMutator {
  override visitFor(s: For): Stmt {
    const loop = super.visitFor(s);
    if (loop.kind !== "For" || loop.forKind !== "unrolled") return loop;
    if (loop.min.kind !== "IntImm" || loop.extent.kind !== "IntImm") return loop;
    const size = statementCount(loop.body);
    if (size === undefined || loop.extent.value * size > MAX_UNROLLED_STATEMENTS) return loop;
    const min = loop.min.value;
    const values = Array.from({ length: loop.extent.value }, (_, i) => min + i);
    return seq(instantiations(loop.body, loop.loopVar, values));
  }
}

/**
 * Statements an expansion of `body` produces (inner loops count their extent times), or
 * undefined when the body cannot be repeated (it declares storage or variables, or has a loop of
 * symbolic extent).
 */
function statementCount(body: Stmt): number | undefined {
  switch (body.kind) {
    case "BufferStore":
    case "Evaluate":
      return 1;
    case "SeqStmt": {
      let n = 0;
      for (const s of body.seq) {
        const k = statementCount(s);
        if (k === undefined) return undefined;
        n += k;
      }
      return n;
    }
    case "IfThenElse": {
      const t = statementCount(body.thenCase);
      const e = body.elseCase === undefined ? 0 : statementCount(body.elseCase);
      return t === undefined || e === undefined ? undefined : 1 + t + e;
    }
    case "For": {
      const inner = statementCount(body.body);
      return body.extent.kind !== "IntImm" || inner === undefined ? undefined : body.extent.value * inner;
    }
    default:
      return undefined;
  }
}
