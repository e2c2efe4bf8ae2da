/**
 * rfactor (TVM's `RFactor`): a reduction over the loop `rf` is split in two.
 *
 * - The rfactor block `<name>_rf` makes `rf` a spatial iterator: it reduces into the new buffer
 *   `<buf>.rf`, which has an extra dimension of `rf`'s extent at `factor_axis`, and runs under
 *   copies of all the original loops.
 * - The write-back block keeps the original name (and handle): it reduces `<buf>.rf` over a
 *   reduction iterator bound to `rf`, under the original spatial loops plus `rf` (the other
 *   reduction loops are removed). The rfactor nest is placed right before the original nest.
 */
import {
  type Block,
  type BlockRealize,
  type Buffer,
  type BufferRegion,
  type For,
  IRMutator,
  type IterVar,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  block as makeBlock,
  blockRealize,
  boolImm,
  bufferLoad,
  bufferStore,
  forEachExpr,
  intImm,
  iterVar,
  printExpr,
  seq,
  substitute,
  substituteStmt,
  usesVar,
  variable,
  withBuffer,
} from "@tessera/ir";
import type { PrimitiveContext } from "../context.js";
import { NonSingleChildBlockError, checkReductionBlock, scopeRootOf } from "../analysis/schedule-checks.js";
import { type MatchedReducer, NoMatchedReducerError, combine, initAndUpdate, matchReducer } from "../analysis/reducer.js";
import type { BlockEntry, LoopEntry, TreeIndex } from "../state/tree-index.js";
import { stripIds } from "../state/node-ids.js";
import { FactorAxisOutOfRangeError, LoopPropertyError, NotSerialLoopKindError, RFactorPredicateError } from "./reduction-errors.js";
import { predicateMatched } from "../analysis/affine-binding.js";

const PRIMITIVE = "rfactor";

/** Returns the rfactor block (as built). */
export function rfactor(ctx: PrimitiveContext, rfLoop: LoopEntry, factorAxisIn: number): Block {
  const { index } = ctx;
  const blk = singleChildBlock(index, rfLoop);
  const { node: block, realize } = blk;
  const scope = scopeRootOf(index, blk, PRIMITIVE, true);
  checkReductionBlock(PRIMITIVE, index, scope, blk);
  if (rfLoop.node.forKind !== "serial") throw new NotSerialLoopKindError(PRIMITIVE, rfLoop.node);

  const { spatialVars, reduceVars } = varsTouchedByIters(block, realize);
  const loops = index.loopsAbove(blk);
  checkLoopProperties(index, loops, rfLoop, blk, spatialVars, reduceVars);

  const parts = initAndUpdate(PRIMITIVE, block);
  const matched = matchReducer(parts);
  if (matched === undefined) throw new NoMatchedReducerError(PRIMITIVE, parts.identity, parts.update);
  const target = parts.update.buffer;
  const ndim = target.shape.length;
  if (factorAxisIn < -(ndim + 1) || factorAxisIn > ndim) throw new FactorAxisOutOfRangeError(PRIMITIVE, target, factorAxisIn);
  const factorAxis = factorAxisIn < 0 ? factorAxisIn + ndim + 1 : factorAxisIn;

  const rf = rfLoop.node;
  const rfShape = [...target.shape];
  rfShape.splice(factorAxis, 0, rf.extent);
  const rfBuffer = withBuffer(target, { name: `${target.name}.rf`, shape: rfShape, data: variable(`${target.name}.rf`, "handle") });

  const rfBlock = makeRFactorBlock(blk, rf, loops, matched, rfBuffer, factorAxis);
  const domains = new Map<Var, Range>(loops.map((l) => [l.node.loopVar, { min: l.node.min, extent: l.node.extent }] as const));
  // Only the predicate is checked: other non-affine rfactor bindings (a reduction iterator that
  // shares a loop with the new one) are accepted, as TVM accepts them outside its debug mode.
  if (!predicateMatched(rfBlock.realize.iterValues, domains, realize.predicate)) {
    throw new RFactorPredicateError(PRIMITIVE, block, printExpr(realize.predicate));
  }
  const writeBack = makeWriteBackBlock(blk, rf, matched, rfBuffer, rfBlock);
  const rfNest = wrapInLoopCopies(rfBlock.realize, loops.map((l) => l.node));

  const outermost = loops[0]!.node;
  const keep = (l: For) => l === rf || !reduceVars.has(l.loopVar);
  const replacer = new RFactorReplacer(new Set(loops.map((l) => l.node)), outermost, rfNest, realize, writeBack, keep, scope.root!.node, rfBuffer);
  ctx.commit(replacer.visitStmt(ctx.func.body));
  return innermostBlock(rfNest);
}

/** The block at the bottom of a freshly built loop nest. */
export function innermostBlock(nest: Stmt): Block {
  let s = nest;
  while (s.kind === "For") s = s.body;
  if (s.kind !== "BlockRealize") throw new Error("internal error: a built loop nest does not end in a block");
  return s.block;
}

function singleChildBlock(index: TreeIndex, loop: LoopEntry): BlockEntry {
  const children = index.childBlocks(loop);
  if (children.length !== 1) throw new NonSingleChildBlockError(PRIMITIVE, loop.node);
  return children[0]!;
}

function varsTouchedByIters(block: Block, realize: BlockRealize): { spatialVars: Set<Var>; reduceVars: Set<Var> } {
  const spatialVars = new Set<Var>();
  const reduceVars = new Set<Var>();
  block.iterVars.forEach((iv, k) => {
    const into = iv.iterType === "spatial" ? spatialVars : iv.iterType === "reduce" ? reduceVars : undefined;
    if (into) forEachExpr(realize.iterValues[k]!, (e) => void (e.kind === "Var" && into.add(e)));
  });
  return { spatialVars, reduceVars };
}

function checkLoopProperties(
  index: TreeIndex,
  loops: readonly LoopEntry[],
  rfLoop: LoopEntry,
  blk: BlockEntry,
  spatialVars: ReadonlySet<Var>,
  reduceVars: ReadonlySet<Var>,
): void {
  const outermost = loops[0]!;
  if (index.childBlocks(outermost)[0] !== blk) throw new LoopPropertyError(PRIMITIVE, outermost.node, "notFirstChildOfOutermost");
  let metReduction = false;
  for (const l of loops) {
    const v = l.node.loopVar;
    const [s, r] = [spatialVars.has(v), reduceVars.has(v)];
    if (s && r) throw new LoopPropertyError(PRIMITIVE, l.node, "touchedByBothKinds");
    if (s) {
      if (l === rfLoop) throw new LoopPropertyError(PRIMITIVE, l.node, "dataParTouchesRFactorLoop");
    } else if (r) {
      if (!metReduction) singleChildBlock(index, l);
      metReduction = true;
    } else if (metReduction && !(l.node.extent.kind === "IntImm" && l.node.extent.value === 1)) {
      throw new LoopPropertyError(PRIMITIVE, l.node, "unboundLoopUnderReduction");
    }
  }
}

const iterFromLoop = (loop: For, name: string, type: IterVar["iterType"]): IterVar =>
  iterVar(variable(name, loop.loopVar.dtype), { min: loop.min, extent: loop.extent }, type);

interface RFactorBlock {
  readonly realize: BlockRealize;
  /** The spatial iterator standing for the rfactor loop. */
  readonly rfIter: IterVar;
  /** Where the rfactor block accesses `<buf>.rf`, in its own iterators. */
  readonly rfIndices: readonly PrimExpr[];
}

function makeRFactorBlock(
  blk: BlockEntry,
  rf: For,
  loops: readonly LoopEntry[],
  matched: MatchedReducer,
  rfBuffer: Buffer,
  factorAxis: number,
): RFactorBlock {
  const { node: block, realize } = blk;
  const loopOfVar = new Map(loops.map((l) => [l.node.loopVar, l.node] as const));
  const rfIter = iterFromLoop(rf, `v${rf.loopVar.name}`, "spatial");
  const loopToIter = new Map<Var, PrimExpr>([[rf.loopVar, rfIter.var]]);
  const iterVars: IterVar[] = [rfIter];
  const bindings: PrimExpr[] = [rf.loopVar];
  const varMap = new Map<Var, PrimExpr>();
  block.iterVars.forEach((iv, k) => {
    const binding = realize.iterValues[k]!;
    if (iv.iterType === "spatial" || !usesVar(binding, (v) => v === rf.loopVar)) {
      iterVars.push(iv);
      bindings.push(binding);
      return;
    }
    // A reduction iterator over the rfactor loop is re-expressed by one iterator per loop it uses.
    for (const v of varsInOrder(binding)) {
      const loop = loopOfVar.get(v);
      if (loop === undefined || loopToIter.has(v)) continue;
      const it = iterFromLoop(loop, `v${loop.loopVar.name}`, "reduce");
      loopToIter.set(v, it.var);
      iterVars.push(it);
      bindings.push(v);
    }
    varMap.set(iv.var, substitute(binding, loopToIter));
  });
  const rfIndices = [...blockUpdate(blk).indices];
  rfIndices.splice(factorAxis, 0, rfIter.var);
  const lhs = bufferLoad(rfBuffer, rfIndices);
  // With no reduction iterator left (every reduction loop was the rfactor loop), each element of
  // <buf>.rf is written once: it simply stores the operand, without init (as TVM does).
  const reduces = iterVars.some((iv) => iv.iterType === "reduce");
  const stored = reduces ? combine(matched.reducer, lhs, matched.rhs) : matched.rhs;
  const body = substituteStmt(bufferStore(rfBuffer, stored, rfIndices), varMap);
  const init = reduces ? substituteStmt(bufferStore(rfBuffer, matched.reducer.identity, rfIndices), varMap) : undefined;
  const reads = block.reads.map((r) => substituteRegion(r, varMap));
  const writes = block.writes.map((w) => {
    const region: Range[] = [...w.region];
    region.splice(factorAxis, 0, { min: rfIter.var, extent: intImm(1, rfIter.var.dtype) });
    return substituteRegion({ buffer: w.buffer === blockUpdate(blk).buffer ? rfBuffer : w.buffer, region }, varMap);
  });
  const rfBlock = makeBlock({ name: `${block.name}_rf`, iterVars, reads, writes, init, body, annotations: block.annotations });
  return { realize: blockRealize(bindings, realize.predicate, rfBlock), rfIter, rfIndices };
}

/** The write-back block: a copy of the original (same id and name) reducing `<buf>.rf` over `rf`. */
function makeWriteBackBlock(blk: BlockEntry, rf: For, matched: MatchedReducer, rfBuffer: Buffer, rfBlock: RFactorBlock): BlockRealize {
  const { node: block, realize } = blk;
  const wbIter = iterFromLoop(rf, `v${rf.loopVar.name}`, "reduce");
  const varMap = new Map<Var, PrimExpr>([[rfBlock.rfIter.var, wbIter.var]]);
  const iterVars: IterVar[] = [wbIter];
  const bindings: PrimExpr[] = [rf.loopVar];
  block.iterVars.forEach((iv, k) => {
    if (iv.iterType !== "spatial") return;
    const copy = iterVar(variable(iv.var.name, iv.var.dtype), iv.dom, "spatial");
    iterVars.push(copy);
    bindings.push(realize.iterValues[k]!);
    varMap.set(iv.var, copy.var);
  });
  const update = blockUpdate(blk);
  const lhs = substitute(matched.lhs, varMap);
  const rhs = substitute(bufferLoad(rfBuffer, rfBlock.rfIndices), varMap);
  const indices = update.indices.map((i) => substitute(i, varMap));
  const pointRegion = (e: PrimExpr): BufferRegion => {
    if (e.kind !== "BufferLoad") throw new Error("internal error: rfactor operand is not a load");
    return { buffer: e.buffer, region: e.indices.map((i) => ({ min: i, extent: intImm(1, i.dtype) })) };
  };
  const wb: Block = {
    ...block,
    iterVars,
    reads: [pointRegion(rhs)],
    writes: [pointRegion(lhs)],
    init: bufferStore(update.buffer, matched.reducer.identity, indices),
    body: bufferStore(update.buffer, combine(matched.reducer, lhs, rhs), indices),
    allocBuffers: [],
    matchBuffers: [],
  };
  return { ...realize, iterValues: bindings, predicate: boolImm(true), block: wb };
}

function blockUpdate(blk: BlockEntry) {
  const body = blk.node.body;
  if (body.kind !== "BufferStore") throw new Error("internal error: rfactor on a block whose body is not a store");
  return body;
}

/** Wraps the rfactor block in copies (fresh variables, same names) of every original loop. */
function wrapInLoopCopies(realize: BlockRealize, loops: readonly For[]): Stmt {
  const map = new Map<Var, PrimExpr>(loops.map((l) => [l.loopVar, variable(l.loopVar.name, l.loopVar.dtype)]));
  let nest: Stmt = { ...realize, iterValues: realize.iterValues.map((b) => substitute(b, map)), predicate: substitute(realize.predicate, map) };
  for (const l of [...loops].reverse()) nest = { ...l, loopVar: map.get(l.loopVar) as Var, body: nest };
  return stripIds(nest);
}

function varsInOrder(e: PrimExpr): Var[] {
  const seen: Var[] = [];
  forEachExpr(e, (x) => {
    if (x.kind === "Var" && !seen.includes(x)) seen.push(x);
  });
  return seen;
}

function substituteRegion(r: BufferRegion, map: ReadonlyMap<Var, PrimExpr>): BufferRegion {
  return { buffer: r.buffer, region: r.region.map((x) => ({ min: substitute(x.min, map), extent: substitute(x.extent, map) })) };
}

/** Replaces the reduction nest: the write-back block under the kept loops, after the rfactor nest. */
class RFactorReplacer extends IRMutator {
  constructor(
    private readonly nestLoops: ReadonlySet<For>,
    private readonly outermost: For,
    private readonly rfNest: Stmt,
    private readonly oldRealize: BlockRealize,
    private readonly writeBack: BlockRealize,
    private readonly keep: (l: For) => boolean,
    private readonly scopeRoot: Block,
    private readonly rfBuffer: Buffer,
  ) {
    super();
  }
  override visitBlock(b: Block): Block {
    const out = super.visitBlock(b);
    return b === this.scopeRoot ? { ...out, allocBuffers: [...out.allocBuffers, this.rfBuffer] } : out;
  }
  override visitStmt(s: Stmt): Stmt {
    if (s === this.oldRealize) return this.writeBack;
    if (s.kind === "For" && this.nestLoops.has(s)) {
      const body = this.visitStmt(s.body);
      const kept = this.keep(s) ? { ...s, body } : body;
      return s === this.outermost ? seq([this.rfNest, kept]) : kept;
    }
    const out = super.visitStmt(s);
    return out.kind === "SeqStmt" && out !== s ? seq(out.seq) : out;
  }
}
