/**
 * Pass 3, `convertBlocksToOpaque` (TVM ConvertBlocksToOpaque): every block iterator is replaced by
 * its binding everywhere below the block (body, read/write regions, match_buffer sources, nested
 * bindings); blocks keep no iterators. Requires lowerInitBlock (an `init` needs its iterators).
 */
import { type BlockRealize, IRMutator, type PrimExpr, type PrimFunc, type Stmt, type Var, withBody } from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";

const PASS = "convertBlocksToOpaque";

class IterVarInliner extends IRMutator {
  /** Iterator → binding (already expressed in loop variables), for every block entered so far. */
  private readonly bindings = new Map<Var, PrimExpr>();

  override visitVar(v: Var): PrimExpr {
    return this.bindings.get(v) ?? v;
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const blk = s.block;
    if (blk.init !== undefined) {
      throw new LoweringError(PASS, `block ${blk.name} still has an init statement: run lowerInitBlock first`);
    }
    const values = s.iterValues.map((v) => this.visitExpr(v));
    blk.iterVars.forEach((iv, i) => this.bindings.set(iv.var, values[i]!));
    const predicate = this.visitExpr(s.predicate);
    const visited = this.visitBlock({ ...blk, iterVars: [] });
    return { kind: "BlockRealize", iterValues: [], predicate, block: visited };
  }
}

export function convertBlocksToOpaque(func: PrimFunc): PrimFunc {
  const body = new IterVarInliner().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const convertBlocksToOpaquePass: Pass = { name: PASS, run: (func) => convertBlocksToOpaque(func) };
