/**
 * Pass 1, `lowerInitBlock` (TVM LowerInitBlock): a reduction block's `init` statement becomes
 * `if (every reduce iterator == its minimum) init` at the start of its body.
 */
import { type Block, IRMutator, type PrimExpr, type PrimFunc, eq, ifThenElseStmt, seq, withBody } from "@tessera/ir";
import type { Pass } from "../pass.js";
import { allOf } from "../util/conditions.js";

class InitLowerer extends IRMutator {
  override visitBlock(b: Block): Block {
    const visited = super.visitBlock(b);
    const init = visited.init;
    if (init === undefined) return visited;
    const atStart: PrimExpr[] = visited.iterVars.filter((iv) => iv.iterType === "reduce").map((iv) => eq(iv.var, iv.dom.min));
    const guarded = atStart.length === 0 ? init : ifThenElseStmt(allOf(atStart), init);
    return { ...visited, init: undefined, body: seq([guarded, visited.body]) };
  }
}

export function lowerInitBlock(func: PrimFunc): PrimFunc {
  const body = new InitLowerer().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const lowerInitBlockPass: Pass = { name: "lowerInitBlock", run: (func) => lowerInitBlock(func) };
