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
  type BufferStore,
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
  letStmt,
  printExpr,
  seq,
  substitute,
  substituteStmt,
  usesVar,
  variable,
  withBuffer,
} from "@tessera/ir";
import type { PrimitiveContext } from "../../context.js";
import { NonSingleChildBlockError, checkReductionBlock, scopeRootOf } from "../../analysis/schedule-checks.js";
import { type MatchedReducer, NoMatchedReducerError, combine, initAndUpdate, matchReducer } from "../../analysis/reducer.js";
import type { BlockEntry, LoopEntry, TreeIndex } from "../../state/tree-index.js";
import { stripIds } from "../../state/node-ids.js";
import { FactorAxisOutOfRangeError, LoopPropertyError, NotSerialLoopKindError, RFactorPredicateError } from "./errors.js";
import { predicateMatched } from "../../analysis/affine-binding.js";

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
  if (matched === undefined) throw new NoMatchedReducerError(PRIMITIVE, parts.identities, parts.updates);
  const target = parts.updates[0]!.buffer;
  const ndim = target.shape.length;
  if (factorAxisIn < -(ndim + 1) || factorAxisIn > ndim) throw new FactorAxisOutOfRangeError(PRIMITIVE, target, factorAxisIn);
  const factorAxis = factorAxisIn < 0 ? factorAxisIn + ndim + 1 : factorAxisIn;

  const rf = rfLoop.node;
  // One rfactor buffer per reduced buffer (two for argmax), each with the extra dimension.
  const rfBuffers = new Map<Buffer, Buffer>(
    parts.updates.map((u) => {
      const rfShape = [...u.buffer.shape];
      rfShape.splice(factorAxis, 0, rf.extent);
      const name = `${u.buffer.name}.rf`;
      return [u.buffer, withBuffer(u.buffer, { name, shape: rfShape, data: variable(name, "handle") })] as const;
    }),
  );
  const reduction: Reduction = { updates: parts.updates, matched, rfBuffers };

  const rfBlock = makeRFactorBlock(blk, rf, loops, reduction, factorAxis);
  const domains = new Map<Var, Range>(loops.map((l) => [l.node.loopVar, { min: l.node.min, extent: l.node.extent }] as const));
  // Only the predicate is checked: other non-affine rfactor bindings (a reduction iterator that
  // shares a loop with the new one) are accepted, as TVM accepts them outside its debug mode.
  if (!predicateMatched(rfBlock.realize.iterValues, domains, realize.predicate)) {
    throw new RFactorPredicateError(PRIMITIVE, block, printExpr(realize.predicate));
  }
  const writeBack = makeWriteBackBlock(blk, rf, reduction, rfBlock);
  const rfNest = wrapInLoopCopies(
    rfBlock.realize,
    loops.map((l) => l.node),
  );

  const outermost = loops[0]!.node;
  const keep = (l: For) => l === rf || !reduceVars.has(l.loopVar);
  const replacer = new RFactorReplacer(new Set(loops.map((l) => l.node)), outermost, rfNest, realize, writeBack, keep, scope.root!.node, [
    ...rfBuffers.values(),
  ]);
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

/** The reduction being factored: its updates (in init order), reducer, and rfactor buffers. */
interface Reduction {
  readonly updates: readonly BufferStore[];
  readonly matched: MatchedReducer;
  readonly rfBuffers: ReadonlyMap<Buffer, Buffer>;
}

/**
 * The body of a reduction into `buffers` at `indices`: the operands stored directly when nothing
 * is reduced any more; one store of the combined value for one buffer; for several, one let per
 * buffer (`v_<buffer>`) binding the combined values, then the stores (TVM's `CreateBlockBody`).
 */
function reductionBody(
  reduces: boolean,
  matched: MatchedReducer,
  buffers: readonly Buffer[],
  indices: readonly PrimExpr[],
  lhs: readonly PrimExpr[],
  rhs: readonly PrimExpr[],
): Stmt {
  if (!reduces) return seqOrOne(buffers.map((b, i) => bufferStore(b, rhs[i]!, indices)));
  const values = combine(matched.reducer, lhs, rhs);
  if (buffers.length === 1) return bufferStore(buffers[0]!, values[0]!, indices);
  const lets = buffers.map((b, i) => variable(`v_${b.name}`, values[i]!.dtype));
  let body: Stmt = seq(buffers.map((b, i) => bufferStore(b, lets[i]!, indices)));
  for (let i = lets.length - 1; i >= 0; i--) body = letStmt(lets[i]!, values[i]!, body);
  return body;
}

function reductionInit(matched: MatchedReducer, buffers: readonly Buffer[], indices: readonly PrimExpr[]): Stmt {
  return seqOrOne(buffers.map((b, i) => bufferStore(b, matched.reducer.identity[i]!, indices)));
}

const seqOrOne = (stmts: Stmt[]): Stmt => (stmts.length === 1 ? stmts[0]! : seq(stmts));

function makeRFactorBlock(blk: BlockEntry, rf: For, loops: readonly LoopEntry[], reduction: Reduction, factorAxis: number): RFactorBlock {
  const { node: block, realize } = blk;
  const { updates, matched, rfBuffers } = reduction;
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
  const rfIndices = [...updates[0]!.indices];
  rfIndices.splice(factorAxis, 0, rfIter.var);
  const buffers = updates.map((u) => rfBuffers.get(u.buffer)!);
  const lhs = buffers.map((b) => bufferLoad(b, rfIndices));
  // With no reduction iterator left (every reduction loop was the rfactor loop), each element of
  // <buf>.rf is written once: it simply stores the operand, without init (as TVM does).
  const reduces = iterVars.some((iv) => iv.iterType === "reduce");
  const body = substituteStmt(reductionBody(reduces, matched, buffers, rfIndices, lhs, matched.rhs), varMap);
  const init = reduces ? substituteStmt(reductionInit(matched, buffers, rfIndices), varMap) : undefined;
  const reads = block.reads.map((r) => substituteRegion(r, varMap));
  const writes = block.writes.map((w) => {
    const region: Range[] = [...w.region];
    region.splice(factorAxis, 0, { min: rfIter.var, extent: intImm(1, rfIter.var.dtype) });
    return substituteRegion({ buffer: rfBuffers.get(w.buffer) ?? w.buffer, region }, varMap);
  });
  const rfBlock = makeBlock({ name: `${block.name}_rf`, iterVars, reads, writes, init, body, annotations: block.annotations });
  return { realize: blockRealize(bindings, realize.predicate, rfBlock), rfIter, rfIndices };
}

/** The write-back block: a copy of the original (same id and name) reducing `<buf>.rf` over `rf`. */
function makeWriteBackBlock(blk: BlockEntry, rf: For, reduction: Reduction, rfBlock: RFactorBlock): BlockRealize {
  const { node: block, realize } = blk;
  const { updates, matched, rfBuffers } = reduction;
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
  const buffers = updates.map((u) => u.buffer);
  const lhs = matched.lhs.map((e) => substitute(e, varMap));
  const rhs = buffers.map((b) => substitute(bufferLoad(rfBuffers.get(b)!, rfBlock.rfIndices), varMap));
  const indices = updates[0]!.indices.map((i) => substitute(i, varMap));
  const pointRegion = (e: PrimExpr): BufferRegion => {
    if (e.kind !== "BufferLoad") throw new Error("internal error: rfactor operand is not a load");
    return { buffer: e.buffer, region: e.indices.map((i) => ({ min: i, extent: intImm(1, i.dtype) })) };
  };
  const wb: Block = {
    ...block,
    iterVars,
    reads: rhs.map(pointRegion),
    writes: lhs.map(pointRegion),
    init: reductionInit(matched, buffers, indices),
    body: reductionBody(true, matched, buffers, indices, lhs, rhs),
    allocBuffers: [],
    matchBuffers: [],
  };
  return { ...realize, iterValues: bindings, predicate: boolImm(true), block: wb };
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
    private readonly rfBuffers: readonly Buffer[],
  ) {
    super();
  }
  override visitBlock(b: Block): Block {
    const out = super.visitBlock(b);
    return b === this.scopeRoot ? { ...out, allocBuffers: [...out.allocBuffers, ...this.rfBuffers] } : out;
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
