/**
 * Building the blocks of blockize (TVM's `DeriveBlockBinding`, `GenerateInner`, `GenerateOuterInit`,
 * `EvalSetRegions`): from a subspace division, the outer block's iterators (`<v>_o`) and bindings,
 * the inner block's (`<v>_i`), the inner block rewritten in them, the outer block's relaxed
 * regions, and the outer block's init when the inner block has one.
 */
import {
  Analyzer,
  type Block,
  type BlockRealize,
  type BufferRegion,
  type For,
  Substituter,
  type IntervalSet,
  type IterVar,
  type PrimExpr,
  type Range,
  type Stmt,
  type Var,
  add,
  block as makeBlock,
  blockRealize,
  evalSet,
  intImm,
  isFiniteInterval,
  iterVar,
  mul,
  sub,
  substituteStmt,
  usesVar,
  variable,
} from "@tessera/ir";
import type { DividedBinding } from "./subspace.js";

export interface DerivedIterators {
  readonly outerIters: IterVar[];
  readonly outerBindings: PrimExpr[];
  readonly innerIters: IterVar[];
  readonly innerBindings: PrimExpr[];
  /** Each original iterator in terms of the new ones. */
  readonly substitution: Map<Var, PrimExpr>;
}

const isOne = (e: PrimExpr): boolean => e.kind === "IntImm" && e.value === 1;

/**
 * The iterators of both blocks: one outer iterator per original one, an inner one where the inner
 * extent is not 1. `reuse` gives the outer variables to use instead of new ones (blockize of
 * several blocks: the later blocks share the first one's outer iterators).
 */
export function deriveIterators(
  iterVars: readonly IterVar[],
  division: readonly DividedBinding[],
  preserveUnitIters: boolean,
  reuse?: readonly IterVar[],
): DerivedIterators {
  const out: DerivedIterators = { outerIters: [], outerBindings: [], innerIters: [], innerBindings: [], substitution: new Map() };
  iterVars.forEach((iv, k) => {
    const d = division[k]!;
    const outerVar = reuse?.[k]?.var ?? variable(`${iv.var.name}_o`, iv.var.dtype);
    out.outerIters.push(iterVar(outerVar, d.outerDom, iv.iterType));
    out.outerBindings.push(d.outer);
    if (isOne(d.innerExtent)) {
      const dropped = isOne(d.outerDom.extent) && !preserveUnitIters;
      out.substitution.set(iv.var, dropped ? intImm(0, iv.var.dtype) : outerVar);
      return;
    }
    const innerVar = variable(`${iv.var.name}_i`, iv.var.dtype);
    out.innerIters.push(iterVar(innerVar, { min: intImm(0, iv.var.dtype), extent: d.innerExtent }, iv.iterType));
    out.innerBindings.push(d.inner);
    out.substitution.set(iv.var, isOne(d.outerDom.extent) ? innerVar : add(mul(outerVar, d.innerExtent), innerVar));
  });
  return out;
}

/** Substitutes variables and simplifies every expression that changed (TVM's blockize `Substitute`). */
class SimplifyingSubstituter extends Substituter {
  constructor(
    map: ReadonlyMap<Var, PrimExpr>,
    private readonly analyzer: Analyzer,
  ) {
    super((v) => map.get(v));
  }
  override visitExpr(e: PrimExpr): PrimExpr {
    const out = super.visitExpr(e);
    return out === e || out.kind === "Var" ? out : this.analyzer.simplify(out);
  }
}

/** The block with its iterators replaced by their expressions in the new iterators. */
export function substituteBlock(blk: Block, derived: DerivedIterators): Block {
  const analyzer = new Analyzer();
  for (const iv of derived.innerIters) analyzer.bind(iv.var, iv.dom);
  return new SimplifyingSubstituter(derived.substitution, analyzer).visitBlock(blk);
}

/** Each region relaxed over the inner iterators, as the smallest range covering it (the whole dimension when unbounded). */
export function relaxOverInner(regions: readonly BufferRegion[], innerIters: readonly IterVar[]): BufferRegion[] {
  const analyzer = new Analyzer();
  const dom = new Map<Var, IntervalSet>(innerIters.map((iv) => [iv.var, { min: iv.dom.min, max: analyzer.simplify(sub(add(iv.dom.min, iv.dom.extent), 1)) }]));
  return regions.map(({ buffer, region }) => ({
    buffer,
    region: region.map((r, d): Range => {
      const lo = evalSet(r.min, dom, analyzer);
      const hi = evalSet(sub(add(r.min, r.extent), 1), dom, analyzer);
      const cover = { min: lo.min, max: hi.max };
      if (!isFiniteInterval(cover)) return { min: intImm(0, buffer.shape[d]!.dtype), extent: buffer.shape[d]! };
      const min = cover.min as PrimExpr;
      return { min, extent: analyzer.simplify(add(sub(cover.max as PrimExpr, min), 1)) };
    }),
  }));
}

/**
 * The outer block's init: a block `<name>_init` over the inner block's spatial iterators that the
 * init uses (`<v>_init`, same bindings and predicate), under fresh copies of the inner loops those
 * bindings or its predicate use. `innerLoops` are innermost first.
 */
export function outerInit(init: Stmt, inner: BlockRealize, innerLoops: readonly For[], name: string): Stmt {
  const renamed = new Map<Var, PrimExpr>();
  const iterVars: IterVar[] = [];
  const bindings: PrimExpr[] = [];
  inner.block.iterVars.forEach((iv, k) => {
    if (iv.iterType !== "spatial" || !usesVar(init, (v) => v === iv.var)) return;
    const copy = variable(`${iv.var.name}_init`, iv.var.dtype);
    renamed.set(iv.var, copy);
    iterVars.push({ ...iv, var: copy });
    bindings.push(inner.iterValues[k]!);
  });
  let stmt: Stmt = blockRealize(bindings, inner.predicate, makeBlock({ name, iterVars, reads: [], writes: inner.block.writes, body: init }));
  for (const loop of innerLoops) {
    // Unlike TVM, loops the predicate uses are copied too: the init block refers to them.
    const uses = (e: PrimExpr) => usesVar(e, (v) => v === loop.loopVar);
    if (!bindings.some(uses) && !uses(inner.predicate)) continue;
    const loopVar = variable(loop.loopVar.name, loop.loopVar.dtype);
    renamed.set(loop.loopVar, loopVar);
    // A new node (no schedule id): the original loop stays in the outer block's body.
    stmt = {
      kind: "For",
      loopVar,
      min: loop.min,
      extent: loop.extent,
      forKind: loop.forKind,
      threadTag: loop.threadTag,
      body: stmt,
      annotations: loop.annotations,
    };
  }
  return substituteStmt(stmt, renamed);
}
