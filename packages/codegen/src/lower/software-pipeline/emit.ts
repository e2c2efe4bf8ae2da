/**
 * The pipelined loop as prologue, steady-state body and epilogue (TVM's EmitImpl). In normalised
 * iterations `[0, n)` of a loop of `n` iterations and maximum stage `M`, pipelined iteration `i`
 * runs instance `i - s` of each statement of stage `s`, in `software_pipeline_order`:
 *
 * - prologue `[0, M)` and epilogue `[n, n + M)`: unrolled loops (or the statements alone for one
 *   iteration) in which a statement runs only where its instance is inside `[0, n)`; where `n` may
 *   be below `M`, the epilogue starts at `max(n, M)` (constant `n`) or runs only from `M` on;
 * - body `[M, n)`: every statement runs; the loop keeps its kind and other annotations.
 */
import {
  Analyzer,
  type Annotations,
  type For,
  type ForKind,
  type PrimExpr,
  type Stmt,
  type Var,
  add,
  boolImm,
  forLoop,
  intImm,
  isConstInt,
  le,
  max,
  seq,
  simplify,
  sub,
  variable,
} from "@tessera/ir";
import type { AsyncQueues, SectionEntry } from "./async-queues.js";
import { noOpBlock, predicated, realizeBlock } from "./blocks.js";
import { edgeGuard } from "./guards.js";
import { InstanceRewriter, type VersionedBuffer } from "./instance.js";
import type { PipelineStmt } from "./model.js";

export interface PipelineLayout {
  readonly loop: For;
  readonly enclosing: readonly For[];
  /** In `software_pipeline_order`. */
  readonly ordered: readonly PipelineStmt[];
  readonly maxStage: number;
  readonly versioned: ReadonlyMap<Var, VersionedBuffer>;
  readonly annotations: Annotations;
  readonly asyncQueues: AsyncQueues | undefined;
  /** Whether the section blocks get inferred read/write regions (TVM's output) or none. */
  readonly regions: boolean;
  /** Whether edge sections' bounds checks take TVM's forms (guards.ts). */
  readonly tvmGuards: boolean;
}

export interface Section {
  readonly start: PrimExpr;
  readonly end: PrimExpr;
  /** Prologue and epilogue are unrolled and guard each statement with its iteration's bounds. */
  readonly edge: boolean;
  /** Where the epilogue of a loop of dynamic trip count may have fewer iterations than stages: its first real iteration. */
  readonly lowerBound?: PrimExpr;
}

/** Prologue, body and epilogue, each a block (a no-op block where a section is empty), as in TVM. */
export function emitPipeline(layout: PipelineLayout): Stmt[] {
  const n = layout.loop.extent;
  const m = intImm(layout.maxStage, n.dtype);
  const zero = intImm(0, n.dtype);
  const analyzer = new Analyzer();
  let epilogue: Section = { start: n, end: simplify(add(n, m)), edge: true };
  if (layout.maxStage > 1 && !analyzer.canProveGreaterEqual(n, layout.maxStage)) {
    epilogue = n.kind === "IntImm" ? { ...epilogue, start: simplify(max(n, m)) } : { ...epilogue, lowerBound: m };
  }
  const sections: Section[] = [{ start: zero, end: m, edge: true }, { start: m, end: n, edge: false }, epilogue];
  return sections.map((s) => emitSection(layout, s));
}

function emitSection(layout: PipelineLayout, section: Section): Stmt {
  const { loop } = layout;
  const tripCount = simplify(sub(section.end, section.start));
  const analyzer = new Analyzer();
  if (analyzer.canProve(le(tripCount, 0))) return noOpBlock();
  const unit = analyzer.canProveEqual(tripCount, 1);
  const i: PrimExpr = unit ? intImm(0, loop.loopVar.dtype) : variable(loop.loopVar.name, loop.loopVar.dtype);
  for (const outer of layout.enclosing) {
    if (analyzer.canProveGreater(outer.extent, 0)) analyzer.bind(outer.loopVar, { min: outer.min, extent: outer.extent }, true);
  }
  if (i.kind === "Var" && analyzer.canProveGreater(tripCount, 0)) analyzer.bind(i, { min: intImm(0), extent: tripCount });
  const guard = section.edge ? edgeGuard(layout, section, i, tripCount) : undefined;

  const entries: SectionEntry[] = [];
  for (const st of layout.ordered) {
    const iteration = analyzer.simplify(sub(add(i, section.start), st.stage));
    const predicate = guard === undefined ? boolImm(true) : guard(st.stage, analyzer);
    if (isConstInt(predicate, 0)) continue;
    const loopValue = analyzer.simplify(add(loop.min, iteration));
    const body = new InstanceRewriter(loop.loopVar, iteration, loopValue, layout.versioned, analyzer, layout.maxStage !== 1).visitStmt(st.stmt);
    entries.push({ st, predicate, body, iteration });
  }
  const stmts =
    layout.asyncQueues === undefined ? entries.map((e) => predicated(e.predicate, e.body)) : layout.asyncQueues.emitSection(entries, tripCount, analyzer);
  if (stmts.length === 0) return noOpBlock();
  if (i.kind !== "Var") return realizeBlock(seq(stmts), layout.regions);
  const kind: ForKind = section.edge ? "unrolled" : loop.forKind;
  return realizeBlock(forLoop(i, tripCount, seq(stmts), { kind, annotations: layout.annotations }), layout.regions);
}
