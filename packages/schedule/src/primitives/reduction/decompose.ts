/**
 * decompose-reduction (TVM's `DecomposeReduction`): the block's `init` becomes a block of its own,
 * `<name>_init`, over copies (`<var>_init`) of the loops between `loop` and the block that its
 * spatial bindings use, inserted right before `loop`. The reduction block loses its init, is
 * renamed `<name>_update` (keeping its handle) and gets its written regions prepended to its reads.
 */
import {
  type Block,
  type BlockRealize,
  type BufferRegion,
  type For,
  IRMutator,
  type IterVar,
  type PrimExpr,
  type Stmt,
  type Var,
  and,
  block as makeBlock,
  boolImm,
  blockRealize,
  iterVar,
  seq,
  substitute,
  substituteStmt,
  usesVar,
  variable,
} from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { checkReductionBlock, scopeRootOf } from "../../analysis/schedule-checks.js";
import type { BlockEntry, LoopEntry } from "../../state/tree-index.js";
import { stripIds } from "../../state/node-ids.js";
import { LoopHeightError, LoopPositionError } from "./errors.js";
import { innermostBlock } from "./rfactor.js";

const PRIMITIVE = "decompose-reduction";

/** Returns the init block as committed (the caller looks up its entry). */
export function decomposeReduction(ctx: PrimitiveContext, blk: BlockEntry, loop: LoopEntry): Block {
  const { index } = ctx;
  const { node: block, realize } = blk;
  const loops = index.loopsAbove(blk);
  const scope = scopeRootOf(index, blk, PRIMITIVE, false);
  const position = loops.indexOf(loop);
  if (position < 0) throw new LoopPositionError(PRIMITIVE, loop.node, block);
  checkReductionBlock(PRIMITIVE, index, scope, blk);
  block.iterVars.forEach((iv, k) => {
    if (iv.iterType !== "reduce") return;
    for (const higher of loops.slice(0, position)) {
      if (usesVar(realize.iterValues[k]!, (v) => v === higher.node.loopVar)) throw new LoopHeightError(PRIMITIVE, loop.node, block);
    }
  });

  // The init block: copies of the spatial iterators with the same bindings.
  const varMap = new Map<Var, PrimExpr>();
  const iterVars: IterVar[] = [];
  const bindings: PrimExpr[] = [];
  block.iterVars.forEach((iv, k) => {
    if (iv.iterType !== "spatial") return;
    const copy = variable(iv.var.name, iv.var.dtype);
    varMap.set(iv.var, copy);
    iterVars.push(iterVar(copy, iv.dom, iv.iterType));
    bindings.push(realize.iterValues[k]!);
  });
  const initBlock = makeBlock({
    name: `${block.name}_init`,
    iterVars,
    reads: [],
    writes: block.writes.map((w) => substituteRegion(w, varMap)),
    body: substituteStmt(block.init!, varMap),
    annotations: block.annotations,
  });

  // Loops from `loop` down to the block that the init bindings use are copied; others dropped.
  const chosen: For[] = [];
  const discarded = new Set<Var>();
  for (const l of loops.slice(position).reverse()) {
    const v = l.node.loopVar;
    if (bindings.some((b) => usesVar(b, (x) => x === v))) chosen.push(l.node);
    else discarded.add(v);
  }
  const loopVarMap = new Map<Var, PrimExpr>();
  let nest: Stmt = blockRealize(bindings, remakePredicate(realize.predicate, discarded), initBlock);
  for (const old of chosen) {
    const v = variable(`${old.loopVar.name}_init`, old.loopVar.dtype);
    loopVarMap.set(old.loopVar, v);
    nest = { ...old, loopVar: v, body: nest };
  }
  nest = stripIds(substituteStmt(nest, loopVarMap));

  const update: Block = {
    ...block,
    name: `${block.name}_update`,
    init: undefined,
    reads: [...block.writes.filter((w) => !block.reads.some((r) => r.buffer === w.buffer)), ...block.reads],
  };
  ctx.commit(new DecomposeReplacer(loop.node, nest, block, update).visitStmt(ctx.func.body));
  return innermostBlock(nest);
}

/** Keeps the conjuncts of the predicate that use none of the dropped loops. */
function remakePredicate(predicate: PrimExpr, discarded: ReadonlySet<Var>): PrimExpr {
  const conjuncts: PrimExpr[] = [];
  const split = (p: PrimExpr): void => {
    if (p.kind === "Binary" && p.op === "and") {
      split(p.a);
      split(p.b);
    } else conjuncts.push(p);
  };
  split(predicate);
  const kept = conjuncts.filter((c) => !(c.kind === "IntImm") && !usesVar(c, (v) => discarded.has(v)));
  return kept.length === 0 ? boolImm(true) : kept.reduce((a, b) => and(a, b));
}

function substituteRegion(r: BufferRegion, map: ReadonlyMap<Var, PrimExpr>): BufferRegion {
  return { buffer: r.buffer, region: r.region.map((x) => ({ min: substitute(x.min, map), extent: substitute(x.extent, map) })) };
}

/** Puts the init nest before the target loop and swaps in the update block, flattening sequences. */
class DecomposeReplacer extends IRMutator {
  constructor(
    private readonly target: For,
    private readonly initNest: Stmt,
    private readonly reduction: Block,
    private readonly update: Block,
  ) {
    super();
  }
  override visitStmt(s: Stmt): Stmt {
    const out = super.visitStmt(s);
    if (s === this.target) return seq([this.initNest, out]);
    return out.kind === "SeqStmt" && out !== s ? seq(out.seq) : out;
  }
  override visitBlockRealize(s: BlockRealize): Stmt {
    return s.block === this.reduction ? { ...s, block: this.update } : super.visitBlockRealize(s);
  }
}
