/**
 * replaceStmts with a tree index walks only the paths to the replaced nodes (state/replace.ts). On
 * random schedules — splits, cache stages and compute-at moves drawn by fast-check — replacing
 * random loops, realizes and blocks must give exactly the body the full walk gives: with the
 * index of the body itself, with the index of an earlier body that shares the replaced nodes (as
 * compute-at's second rewrite), and with a replaced node the index does not know.
 */
import { type Block, type Stmt, forLoop, intImm, parsePrimFunc, variable } from "@tessera/ir";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PrimitiveContext } from "../src/context.js";
import { Schedule } from "../src/index.js";
import { REMOVE, type Replacement, replaceStmts } from "../src/state/replace.js";
import type { ScheduleState } from "../src/state/schedule-state.js";
import type { TreeIndex } from "../src/state/tree-index.js";
import { type StageStep, applyStageStep, stageStep, threeStageWorkload } from "./random-stage-steps.js";

/** A replacement: which node of the index (by position in its pre-order) and how. */
interface Pick {
  readonly node: number;
  readonly how: "annotate" | "rename" | "wrap" | "remove";
}
const picks = fc.array(fc.record({ node: fc.nat(), how: fc.constantFrom("annotate" as const, "rename" as const, "wrap" as const, "remove" as const) }), {
  minLength: 1,
  maxLength: 3,
});

/** Every loop and block realize of the index, parents before children. */
function nodesOf(index: TreeIndex): Stmt[] {
  const out: Stmt[] = [];
  const visit = (e: (typeof index.roots)[number]): void => {
    out.push(e.kind === "loop" ? e.node : e.realize);
    for (const c of e.children) visit(c);
  };
  for (const r of index.roots) visit(r);
  return out;
}

/** The statement sequences' children, to remove only what a sequence holds. */
function seqChildren(body: Stmt): Set<Stmt> {
  const out = new Set<Stmt>();
  const visit = (s: Stmt): void => {
    switch (s.kind) {
      case "SeqStmt":
        for (const c of s.seq) {
          out.add(c);
          visit(c);
        }
        return;
      case "For":
      case "While":
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt":
        visit(s.body);
        return;
      case "IfThenElse":
        visit(s.thenCase);
        if (s.elseCase) visit(s.elseCase);
        return;
      case "BlockRealize":
        if (s.block.init) visit(s.block.init);
        visit(s.block.body);
        return;
      default:
        return;
    }
  };
  visit(body);
  return out;
}

function replacementsOf(index: TreeIndex, chosen: readonly Pick[]): { stmts: Map<Stmt, Replacement>; blocks: Map<Block, Block> } {
  const nodes = nodesOf(index);
  const inSeq = seqChildren(index.func.body);
  const stmts = new Map<Stmt, Replacement>();
  const blocks = new Map<Block, Block>();
  for (const p of chosen) {
    const node = nodes[p.node % nodes.length]!;
    if (p.how === "remove" && inSeq.has(node)) stmts.set(node, REMOVE);
    else if (p.how === "rename" && node.kind === "BlockRealize") blocks.set(node.block, { ...node.block, name: `${node.block.name}_r` });
    else if (p.how === "wrap") stmts.set(node, forLoop(variable(`w${p.node}`, "int32"), intImm(1, "int32"), node));
    else if (node.kind === "For") stmts.set(node, { ...node, annotations: { ...node.annotations, picked: p.node } });
    else if (node.kind === "BlockRealize") stmts.set(node, { ...node, block: { ...node.block, annotations: { ...node.block.annotations, picked: p.node } } });
  }
  return { stmts, blocks };
}

function scheduled(n: number, steps: readonly StageStep[]): ScheduleState {
  const sch = new Schedule(parsePrimFunc(threeStageWorkload(n, n)));
  for (const s of steps) applyStageStep(sch, s);
  return (sch as unknown as { state: ScheduleState }).state;
}

/** The full walk's result, or the error it threw (a removal that empties a sequence). */
function attempt(f: () => Stmt): Stmt | string {
  try {
    return f();
  } catch (err) {
    return (err as Error).message;
  }
}

describe("replaceStmts along the index's paths", () => {
  it("gives the full walk's body for random replacements in random schedules", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 8 }), fc.array(stageStep, { maxLength: 6 }), picks, (n, steps, chosen) => {
        const index = new PrimitiveContext(scheduled(n, steps)).index;
        const body = index.func.body;
        const { stmts, blocks } = replacementsOf(index, chosen);
        const full = attempt(() => replaceStmts(body, stmts, blocks));
        expect(attempt(() => replaceStmts(body, stmts, blocks, index))).toEqual(full);
      }),
      { numRuns: 80 },
    );
  });

  it("gives the full walk's body on a body rewritten since the index was made, and with a node the index does not know", () => {
    fc.assert(
      fc.property(fc.integer({ min: 4, max: 8 }), fc.array(stageStep, { maxLength: 6 }), picks, picks, (n, steps, first, second) => {
        const index = new PrimitiveContext(scheduled(n, steps)).index;
        const body = index.func.body;
        const a = replacementsOf(index, first);
        const b = replacementsOf(index, second);
        const once = attempt(() => replaceStmts(body, a.stmts, a.blocks, index));
        if (typeof once === "string") return;
        // Keys of the original index, replaced in a body that shares all but the first rewrite's paths.
        expect(attempt(() => replaceStmts(once, b.stmts, b.blocks, index))).toEqual(attempt(() => replaceStmts(once, b.stmts, b.blocks)));
        // A replaced node the index never saw: everything is walked.
        const stranger = forLoop(variable("s", "int32"), intImm(2, "int32"), body);
        const wrapped = attempt(() => replaceStmts(stranger, new Map([...b.stmts, [body, stranger]]), b.blocks, index));
        expect(wrapped).toEqual(attempt(() => replaceStmts(stranger, new Map([...b.stmts, [body, stranger]]), b.blocks)));
      }),
      { numRuns: 50 },
    );
  });
});
