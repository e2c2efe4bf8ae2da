/**
 * Pass 3, `convertBlocksToOpaque` (TVM ConvertBlocksToOpaque): every block iterator is replaced by
 * its binding everywhere below the block (body, read/write regions, match_buffer sources, nested
 * bindings); blocks keep no iterators. Requires lowerInitBlock (an `init` needs its iterators).
 * As in TVM, a block's predicate and bindings may not use its own iterators; nor may code outside
 * the block (both are LoweringErrors naming the iterator and the block).
 */
import { type BlockRealize, IRMutator, forEachStmt, type PrimExpr, type PrimFunc, type Stmt, type Var, withBody } from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";

const PASS = "convertBlocksToOpaque";

class IterVarInliner extends IRMutator {
  /** Iterator → binding (already expressed in loop variables), for the blocks entered. */
  private readonly bindings = new Map<Var, PrimExpr>();
  /** Iterators whose block is being bound: its predicate and bindings may not use them. */
  private readonly forbidden = new Map<Var, string>();

  /** Every block iterator of the function, with its block's name. */
  constructor(private readonly iterators: ReadonlyMap<Var, string>) {
    super();
  }

  override visitVar(v: Var): PrimExpr {
    const bound = this.bindings.get(v);
    if (bound !== undefined) return bound;
    const block = this.forbidden.get(v) ?? this.iterators.get(v);
    if (block !== undefined) {
      const where = this.forbidden.has(v) ? "in the predicate or the bindings of its own block" : "outside its block";
      throw new LoweringError(PASS, `iterator ${v.name} of block ${block} is used ${where}, where it is not defined`);
    }
    return v;
  }

  override visitBlockRealize(s: BlockRealize): Stmt {
    const blk = s.block;
    if (blk.init !== undefined) {
      throw new LoweringError(PASS, `block ${blk.name} still has an init statement: run lowerInitBlock first`);
    }
    for (const iv of blk.iterVars) this.forbidden.set(iv.var, blk.name);
    const values = s.iterValues.map((v) => this.visitExpr(v));
    const predicate = this.visitExpr(s.predicate);
    for (const iv of blk.iterVars) this.forbidden.delete(iv.var);
    blk.iterVars.forEach((iv, i) => this.bindings.set(iv.var, values[i]!));
    const visited = this.visitBlock({ ...blk, iterVars: [] });
    for (const iv of blk.iterVars) this.bindings.delete(iv.var);
    return { kind: "BlockRealize", iterValues: [], predicate, block: visited };
  }
}

export function convertBlocksToOpaque(func: PrimFunc): PrimFunc {
  const iterators = new Map<Var, string>();
  forEachStmt(func.body, (s) => {
    if (s.kind === "BlockRealize") for (const iv of s.block.iterVars) iterators.set(iv.var, s.block.name);
  });
  const body = new IterVarInliner(iterators).visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
}

export const convertBlocksToOpaquePass: Pass = { name: PASS, run: (func) => convertBlocksToOpaque(func) };
