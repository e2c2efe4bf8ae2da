/**
 * reorder(*loops): permutes loops of one perfect chain into the given order. Loops of the chain
 * that are not listed keep their positions; the loop nodes themselves are reused (kinds,
 * annotations and handles survive), only their nesting changes.
 */
import { type Block, type For, type PrimExpr, type Range, type Stmt, type Var, intImm, substitute, usesVar } from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { ScheduleError } from "../../errors.js";
import { type InstructionKind, registerInstruction, renderInput } from "../../instruction.js";
import { hasAffineBinding } from "../../analysis/block-properties.js";
import { isTVMAffineBinding } from "../../analysis/affine-binding.js";
import { replaceStmts } from "../../state/replace.js";
import type { BlockEntry, LoopEntry, TreeIndex } from "../../state/tree-index.js";
import { DependentLoopError, dependentVar } from "./common.js";

export class LoopMultiAppearanceError extends ScheduleError {
  override name = "LoopMultiAppearanceError";
  constructor(loop: For) {
    super("reorder", `Loop ${loop.loopVar.name} appears in the input array for multiple times.`, [loop]);
  }
}

export class LoopsNotAChainError extends ScheduleError {
  override name = "LoopsNotAChainError";
  constructor(problem: For | undefined) {
    super(
      "reorder",
      problem === undefined
        ? "The loops are not in a chain because they are not under the same scope."
        : `The loops are not in a chain because there is a non-single-branch stmt in between. Problematic stmt: loop ${problem.loopVar.name}`,
      problem === undefined ? [] : [problem],
    );
  }
}

/** A block under the reordered loops is not a plain S/R block with affine bindings. */
export class BlockPropertyError extends ScheduleError {
  override name = "BlockPropertyError";
  constructor(block: Block, detail: string) {
    super("reorder", detail, [block]);
  }
}

const PRIMITIVE = "reorder";

/**
 * The top and bottom of the range to reorder (TVM's `GetBoundaryOfReorderRange`): walk up from
 * each loop until the scope block or an already visited loop; the first walk fixes the top, and
 * every later walk must end exactly at the current bottom.
 */
function reorderRange(loops: ReadonlySet<LoopEntry>): { top: LoopEntry; bottom: LoopEntry } {
  let top: LoopEntry | undefined;
  let bottom = [...loops][0]!;
  const visited = new Set<LoopEntry>();
  let reachedScope = false;
  let first = true;
  for (const loop of loops) {
    if (visited.has(loop)) continue;
    for (let v: LoopEntry | BlockEntry | undefined = loop; ; v = v.parent) {
      if (v === undefined || v.kind === "block") {
        if (reachedScope) throw new LoopsNotAChainError(undefined);
        reachedScope = true;
        break;
      }
      if (visited.has(v)) {
        if (v !== bottom) throw new LoopsNotAChainError(v.node);
        bottom = loop;
        break;
      }
      visited.add(v);
      if (first && loops.has(v)) top = v;
    }
    first = false;
  }
  return { top: top!, bottom };
}

/** The loops from `bottom` up to `top`, innermost first; each must be its parent's only child. */
function chainBetween(top: LoopEntry, bottom: LoopEntry): LoopEntry[] {
  const chain: LoopEntry[] = [];
  for (let loop = bottom; loop !== top; ) {
    const parent = loop.parent as LoopEntry;
    if (parent.node.body !== loop.node) throw new LoopsNotAChainError(parent.node);
    chain.push(loop);
    loop = parent;
  }
  chain.push(top);
  return chain;
}

/**
 * Blocks right under the range must have only S/R iterators and bindings that are affine, at
 * least in the loops from the block up to `top` (loops further out are fixed during the reorder).
 */
function checkBlocks(index: TreeIndex, top: LoopEntry, bottom: LoopEntry): void {
  for (const blk of index.childBlocks(bottom)) {
    const block = blk.node;
    for (const iv of block.iterVars) {
      if (iv.iterType !== "spatial" && iv.iterType !== "reduce") {
        throw new BlockPropertyError(
          block,
          `The block ${block.name} under the loops to be reordered have block iter type other than data-parallel or reduction`,
        );
      }
      if (!hasAffineBinding(index, blk) && !partiallyAffine(index, blk, top)) {
        const above = top.parent?.kind === "loop" ? ` under ${top.parent.node.loopVar.name}` : "";
        throw new BlockPropertyError(
          block,
          above === ""
            ? `The block ${block.name} is required to have an affine binding`
            : `The block ${block.name} is required to have an partial affine binding${above}`,
        );
      }
    }
  }
}

/** Affine in the loops from `top` down, treating the loops above `top` as constants. */
function partiallyAffine(index: TreeIndex, blk: BlockEntry, top: LoopEntry): boolean {
  const loops = index.loopsAbove(blk);
  const start = loops.indexOf(top);
  const inner = new Map<Var, Range>(loops.slice(start).map((l) => [l.node.loopVar, { min: l.node.min, extent: l.node.extent }] as const));
  const fixed = new Set(loops.slice(0, start).map((l) => l.node.loopVar));
  // Stand-in values for the fixed loops: affinity in the inner loops does not depend on them.
  const pin = (e: PrimExpr) => substitute(e, (v) => (fixed.has(v) ? intImm(0, v.dtype) : undefined));
  const values = blk.realize.iterValues.map(pin);
  if (values.some((e) => usesVar(e, (v) => fixed.has(v)))) return false;
  return isTVMAffineBinding(values, inner, pin(blk.realize.predicate));
}

/** Rebuilds the chain bottom-up, putting the listed loops in their new positions. */
function newChain(chain: readonly LoopEntry[], ordered: readonly LoopEntry[], listed: ReadonlySet<LoopEntry>): For {
  const inner = new Set<Var>();
  let next = ordered.length - 1;
  let built: Stmt | undefined;
  for (const position of chain) {
    const source = listed.has(position) ? ordered[next--]! : position;
    const used = dependentVar(source.node, inner, true);
    if (used !== undefined) throw new DependentLoopError(PRIMITIVE, source.node, used.name);
    inner.add(source.node.loopVar);
    // Spreading the source loop keeps its schedule id, so its handle follows it.
    built = { ...source.node, body: built ?? position.node.body };
  }
  return built as For;
}

function reorder(ctx: PrimitiveContext, inputs: readonly unknown[]) {
  const ordered = inputs.map((rv, i) => ctx.loop(rv, PRIMITIVE, `loop ${i}`));
  if (ordered.length <= 1) return { outputs: [] };
  const listed = new Set<LoopEntry>();
  for (const loop of ordered) {
    if (listed.has(loop)) throw new LoopMultiAppearanceError(loop.node);
    listed.add(loop);
  }
  const { top, bottom } = reorderRange(listed);
  const chain = chainBetween(top, bottom);
  checkBlocks(ctx.index, top, bottom);
  const loop = newChain(chain, ordered, listed);
  ctx.commit(replaceStmts(ctx.func.body, new Map([[top.node, loop]]), undefined, ctx.index));
  return { outputs: [] };
}

export const REORDER: InstructionKind = registerInstruction({
  name: "Reorder",
  method: "reorder",
  pure: false,
  singleOutput: false,
  attrNames: [],
  apply: (ctx, inputs) => reorder(ctx, inputs),
  formatArgs: (inputs) => inputs.map(renderInput).join(", "),
});
