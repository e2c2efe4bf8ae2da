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
import { Schedule, ScheduleError } from "../src/index.js";
import { REMOVE, type Replacement, replaceStmts } from "../src/state/replace.js";
import type { ScheduleState } from "../src/state/schedule-state.js";
import type { TreeIndex } from "../src/state/tree-index.js";

const workload = (n: number): string => `@T.prim_func
def main(A: T.Buffer((${n}, ${n}), "int32"), D: T.Buffer((${n}, ${n}), "int32")):
    B = T.alloc_buffer((${n}, ${n}), "int32")
    C = T.alloc_buffer((${n}, ${n}), "int32")
    for i, j in T.grid(${n}, ${n}):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = A[vi, vj] + 7
    for i, j, k in T.grid(${n}, ${n}, ${n}):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = 0
            C[vi, vj] = C[vi, vj] + B[vi, vk] * (vj + 1)
    for i, j in T.grid(${n}, ${n}):
        with T.block("D"):
            vi, vj = T.axis.remap("SS", [i, j])
            D[vi, vj] = C[vi, vj] * 2 + A[vi, vj]
`;

type Step =
  | { kind: "split"; block: number; loop: number; factor: number }
  | { kind: "cacheRead"; block: number }
  | { kind: "move"; block: number; target: number; loop: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("split" as const), block: fc.nat(), loop: fc.nat(), factor: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant("cacheRead" as const), block: fc.nat() }),
  fc.record({ kind: fc.constant("move" as const), block: fc.nat(), target: fc.nat(), loop: fc.nat() }),
);

const pick = <T>(xs: readonly T[], k: number): T | undefined => (xs.length === 0 ? undefined : xs[k % xs.length]);

function applyStep(sch: Schedule, s: Step): void {
  const blocks = sch.getChildBlocks(sch.getBlock("root"));
  const block = pick(blocks, s.block)!;
  try {
    if (s.kind === "split") {
      const loop = pick(sch.getLoops(block), s.loop);
      if (loop !== undefined) sch.split(loop, [null, s.factor]);
    } else if (s.kind === "cacheRead") {
      sch.cacheRead(block, 0, "shared");
    } else {
      const loop = pick(sch.getLoops(pick(blocks, s.target)!), s.loop);
      if (loop !== undefined) sch.computeAt(block, loop);
    }
  } catch (err) {
    if (!(err instanceof ScheduleError)) throw err;
  }
}

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

function scheduled(n: number, steps: readonly Step[]): ScheduleState {
  const sch = new Schedule(parsePrimFunc(workload(n)));
  for (const s of steps) applyStep(sch, s);
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
      fc.property(fc.integer({ min: 4, max: 8 }), fc.array(step, { maxLength: 6 }), picks, (n, steps, chosen) => {
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
      fc.property(fc.integer({ min: 4, max: 8 }), fc.array(step, { maxLength: 6 }), picks, picks, (n, steps, first, second) => {
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
