/**
 * Asynchronous stages (`software_pipeline_async_stages`), with TVM's attribute structure:
 *
 * - each producer statement of an async stage is wrapped in `async_scope` (its stores may complete
 *   later), and consecutive producers of one stage form a commit group,
 *   `async_commit_queue_scope(stage)` around them;
 * - the first consumer of a buffer written by an async stage waits,
 *   `async_wait_queue_scope(stage)` + `async_wait_inflight_count(n)`, until at most `n` commit
 *   groups of that stage are still in flight.
 *
 * `n` is how far the producer's head (the iteration its latest commit wrote) runs ahead of the
 * consumer's iteration, summed over the commit groups the consumer reads; a producer placed after
 * its consumer in the order last committed one iteration earlier. Where the producer is predicated
 * off in some iterations (prologue and epilogue), the count only holds where the predicate does:
 * `if_then_else(predicate, n, 0)`. The head is carried from one section (prologue, body,
 * epilogue) to the next while every producer ran in every iteration of the previous section.
 *
 * Commit groups are the runs of producers of one stage that are consecutive in
 * `software_pipeline_order` (TVM assumes they are contiguous). They are fixed once for the whole
 * loop, so that every section commits the same groups per iteration: the wait counts of one
 * section count groups committed by the section before (a prologue without the consumer between
 * two producers must not merge them into one group where the body commits two).
 *
 * A stage whose producers are `tma_copy` blocks (lowerTmaCopy turns them into TMA loads on
 * mbarriers) also gets `tma_copy_instance(i)` inside its commit scopes and waits: the instance
 * (original iteration) the group copies or the consumer reads, which names the mbarrier's phase.
 */
import {
  type Analyzer,
  type PrimExpr,
  type Stmt,
  type Var,
  TMA_COPY,
  TMA_COPY_INSTANCE,
  add,
  and,
  annotationFlag,
  attrStmt,
  forEachStmt,
  ge,
  ifThenElse,
  intImm,
  lt,
  seq,
  sub,
} from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_SCOPE, ASYNC_WAIT_INFLIGHT_COUNT, ASYNC_WAIT_QUEUE_SCOPE } from "@tessera/ir";
import { isConstTrue } from "../util/conditions.js";
import { PASS } from "./annotations.js";
import { predicated, realizeBlock, wrapBody } from "./blocks.js";
import { type PipelineStmt, describeStmt } from "./model.js";

/** One statement instance placed in a section (prologue, body or epilogue). */
export interface SectionEntry {
  readonly st: PipelineStmt;
  /** When the instance runs (its iteration is inside the original loop). */
  readonly predicate: PrimExpr;
  readonly body: Stmt;
  /** The statement's original iteration, relative to the loop's min, in the section's terms. */
  readonly iteration: PrimExpr;
}

interface StageAcrossSections {
  /** Buffers (data variables) the stage writes asynchronously. */
  readonly written: Set<Var>;
  /** The iteration the latest commit wrote, at the start of the next section, when exact. */
  producerHead: PrimExpr | undefined;
  /** Its producers are `tma_copy` blocks. */
  tma: boolean;
}

interface StageInSection {
  groups: number[][];
  /** The loop-wide commit group of each of `groups`. */
  groupKeys: number[];
  producerHead: PrimExpr | undefined;
  predicate: PrimExpr | undefined;
  seen: Set<Var>;
  wait: { before: number; count: PrimExpr } | undefined;
}

export class AsyncQueues {
  private readonly stages = new Map<number, StageAcrossSections>();
  /** Each async producer's commit group for the whole loop: the order of the group's first statement. */
  private readonly groupKeys = new Map<PipelineStmt, number>();

  /** `ordered`: the loop body's statements in `software_pipeline_order`. */
  /** `regions`: whether the commit-group blocks get inferred read/write regions. */
  constructor(
    private readonly loopName: string,
    ordered: readonly PipelineStmt[],
    private readonly regions = true,
  ) {
    ordered.forEach((st, i) => {
      if (!st.isAsync) return;
      const previous = ordered[i - 1];
      const joins = previous !== undefined && previous.isAsync && previous.stage === st.stage;
      this.groupKeys.set(st, joins ? this.groupKeys.get(previous)! : st.order);
    });
  }

  /**
   * The section's statements with async scopes, commit groups and waits. `simplifier` knows the
   * section's loop variable; `tripCount` is the section's number of iterations.
   */
  emitSection(entries: readonly SectionEntry[], tripCount: PrimExpr, simplifier: Analyzer): Stmt[] {
    const local = new Map<number, StageInSection>();
    const stateOf = (stage: number): StageInSection => {
      let s = local.get(stage);
      if (s === undefined) {
        s = { groups: [], groupKeys: [], producerHead: undefined, predicate: undefined, seen: new Set(), wait: undefined };
        local.set(stage, s);
      }
      return s;
    };
    const bodies = entries.map((e) => e.body);
    const groupOf = new Map<Var, number>();
    entries.forEach((e, i) => {
      if (e.st.isAsync) {
        bodies[i] = wrapBody(bodies[i]!, (b) => attrStmt(ASYNC_SCOPE, undefined, intImm(1), b));
        this.addProducer(e, i, stateOf(e.st.stage), groupOf, simplifier);
      }
    });
    this.placeWaits(entries, stateOf, groupOf, simplifier);
    const out = this.assemble(entries, bodies, local, simplifier);
    this.advanceHeads(local, tripCount, simplifier);
    return out;
  }

  private addProducer(e: SectionEntry, index: number, state: StageInSection, groupOf: Map<Var, number>, simplifier: Analyzer): void {
    const last = state.groups[state.groups.length - 1];
    const key = this.groupKeys.get(e.st)!;
    if (last === undefined || state.groupKeys[state.groupKeys.length - 1] !== key || last[last.length - 1] !== index - 1) {
      state.groups.push([index]);
      state.groupKeys.push(key);
    } else {
      last.push(index);
    }
    const across = this.across(e.st.stage);
    if (containsTmaCopy(e.st.stmt)) across.tma = true;
    for (const w of e.st.accesses.writes) {
      across.written.add(w.buffer.data);
      groupOf.set(w.buffer.data, state.groups.length - 1);
    }
    state.producerHead = e.iteration;
    state.predicate =
      state.predicate === undefined || simplifier.canProve(state.predicate) ? e.predicate : simplifier.simplify(and(state.predicate, e.predicate));
  }

  /** TVM's PopulateWaitCounts: where each consumer waits and for how many groups in flight. */
  private placeWaits(
    entries: readonly SectionEntry[],
    stateOf: (stage: number) => StageInSection,
    groupOf: ReadonlyMap<Var, number>,
    simplifier: Analyzer,
  ): void {
    entries.forEach((e, i) => {
      if (e.st.isAsync) for (const w of e.st.accesses.writes) stateOf(e.st.stage).seen.add(w.buffer.data);
      const producer = this.producerStageOf(e.st);
      if (producer === undefined) return;
      const dep = stateOf(producer);
      const heads: (PrimExpr | undefined)[] = [];
      if (dep.groups.length === 0) {
        heads.push(this.across(producer).producerHead);
      } else {
        const counted = new Set<number>();
        for (const r of e.st.accesses.reads) {
          const data = r.buffer.data;
          const group = groupOf.get(data);
          if (!this.across(producer).written.has(data) || group === undefined || counted.has(group)) continue;
          counted.add(group);
          heads.push(dep.seen.has(data) ? dep.producerHead : dep.producerHead && sub(dep.producerHead, 1));
        }
      }
      const count = inFlightCount(heads, e.iteration, simplifier);
      if (dep.wait === undefined) dep.wait = { before: i, count };
      else if (simplifier.canProve(lt(count, dep.wait.count))) dep.wait = { before: dep.wait.before, count };
    });
  }

  /** The async stage whose writes `st` reads (at most one, as in TVM). */
  private producerStageOf(st: PipelineStmt): number | undefined {
    let found: number | undefined;
    for (const [stage, across] of this.stages) {
      if (stage > st.stage || !st.accesses.reads.some((r) => across.written.has(r.buffer.data))) continue;
      if (found !== undefined && found !== stage) {
        throw new LoweringError(
          PASS,
          `loop ${this.loopName}: ${describeStmt(st)} reads buffers written by async stages ${found} and ${stage}; ` +
            `a statement may depend on one async stage only`,
        );
      }
      found = stage;
    }
    return found;
  }

  /** Waits attached, producers grouped under their commit scope (one block), predicates as block predicates. */
  private assemble(entries: readonly SectionEntry[], bodies: Stmt[], local: ReadonlyMap<number, StageInSection>, simplifier: Analyzer): Stmt[] {
    const groupAt: ({ stage: number; group: number } | undefined)[] = entries.map(() => undefined);
    for (const [stage, state] of local) {
      state.groups.forEach((members, group) => members.forEach((i) => (groupAt[i] = { stage, group })));
      if (state.wait === undefined) continue;
      const count =
        state.predicate !== undefined && !simplifier.canProve(state.predicate) ? ifThenElse(state.predicate, state.wait.count, intImm(0)) : state.wait.count;
      const i = state.wait.before;
      const tma = this.across(stage).tma;
      bodies[i] = wrapBody(bodies[i]!, (b) =>
        attrStmt(
          ASYNC_WAIT_QUEUE_SCOPE,
          undefined,
          intImm(stage),
          attrStmt(ASYNC_WAIT_INFLIGHT_COUNT, undefined, count, tma ? attrStmt(TMA_COPY_INSTANCE, undefined, entries[i]!.iteration, b) : b),
        ),
      );
    }
    const out: Stmt[] = [];
    for (let i = 0; i < entries.length; ) {
      const g = groupAt[i];
      if (g === undefined) {
        out.push(predicated(entries[i]!.predicate, bodies[i]!));
        i++;
        continue;
      }
      const members: Stmt[] = [];
      const predicate = entries[i]!.predicate;
      const iteration = entries[i]!.iteration;
      for (; i < entries.length && groupAt[i]?.stage === g.stage && groupAt[i]?.group === g.group; i++) members.push(unwrapped(bodies[i]!));
      const group = this.across(g.stage).tma ? attrStmt(TMA_COPY_INSTANCE, undefined, iteration, seq(members)) : seq(members);
      out.push(predicated(predicate, realizeBlock(attrStmt(ASYNC_COMMIT_QUEUE_SCOPE, undefined, intImm(g.stage), group), this.regions)));
    }
    return out;
  }

  /** Producer heads for the next section: exact only if every producer ran in every iteration. */
  private advanceHeads(local: ReadonlyMap<number, StageInSection>, tripCount: PrimExpr, simplifier: Analyzer): void {
    for (const [stage, state] of local) {
      const across = this.across(stage);
      across.producerHead =
        state.predicate !== undefined && simplifier.canProve(state.predicate) && across.producerHead !== undefined
          ? simplifier.simplify(add(across.producerHead, tripCount))
          : undefined;
    }
  }

  private across(stage: number): StageAcrossSections {
    let s = this.stages.get(stage);
    if (s === undefined) {
      s = { written: new Set(), producerHead: intImm(-1), tma: false };
      this.stages.set(stage, s);
    }
    return s;
  }
}

/** Σ (producer head − consumer iteration) over the groups read, or 0 when a head is unknown or negative. */
function inFlightCount(heads: readonly (PrimExpr | undefined)[], consumer: PrimExpr, simplifier: Analyzer): PrimExpr {
  let sum: PrimExpr = intImm(0);
  for (const head of heads) {
    if (head === undefined || !simplifier.canProve(ge(head, 0))) return intImm(0);
    sum = add(sum, sub(head, consumer));
  }
  return simplifier.simplify(sum);
}

/** A commit group member's body without its block (as TVM merges them), unless the block allocates. */
function unwrapped(stmt: Stmt): Stmt {
  if (stmt.kind !== "BlockRealize" || !isConstTrue(stmt.predicate) || stmt.block.allocBuffers.length > 0) return stmt;
  return stmt.block.body;
}

/** Whether `stmt` holds a block annotated `tma_copy` = 1. */
function containsTmaCopy(stmt: Stmt): boolean {
  let found = false;
  forEachStmt(stmt, (s) => {
    if (s.kind === "BlockRealize") {
      const flag = s.block.annotations[TMA_COPY];
      if (flag !== undefined && annotationFlag(flag) === true) found = true;
    }
    return !found;
  });
  return found;
}
