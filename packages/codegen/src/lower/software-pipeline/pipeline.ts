/**
 * Software pipelining of one annotated loop (TVM InjectSoftwarePipeline): read and check the
 * annotation against the body, find each statement's accesses, give buffers written in one stage
 * and read in a later one their versions, check that the new schedule keeps every dependence,
 * and emit prologue, body and epilogue inside a block that allocates the (re-shaped) buffers (a
 * block even where there are none, as in TVM).
 */
import { type BlockRealize, type Buffer, type For, type Stmt, type Var, block, blockRealize, inferAccessRegions, seq } from "@tessera/ir";
import { stmtAccesses } from "./accesses.js";
import { type PipelineAnnotation, checkAnnotationFitsBody, pipelineError, preservedAnnotations, readPipelineAnnotation } from "./annotations.js";
import { AsyncQueues } from "./async-queues.js";
import { pipelineBody } from "./body.js";
import { checkDependences } from "./dependences.js";
import { realizeBlock } from "./blocks.js";
import { doubleBuffered, withoutDoubleBufferScopes } from "./double-buffers.js";
import { emitPipeline } from "./emit.js";
import type { VersionedBuffer } from "./instance.js";
import { type PipelineStmt, describeStmt, readsData } from "./model.js";
import { multiVersioned, versionCount } from "./versions.js";

export interface PipelineForm {
  /** The blocks made here (the one allocating the pipeline's buffers, the sections, the commit groups, blockized statements) get the regions of their bodies, as in TVM. */
  readonly blockRegions: boolean;
  /** Bounds checks in TVM's forms (guards.ts). */
  readonly tvmGuards: boolean;
}

/**
 * The pipelined replacement of `loop`; `enclosing` are the loops around it, outermost first.
 * `form` says how close to TVM's output text it is (see InjectSoftwarePipelineOptions).
 */
export function pipelineLoop(loop: For, enclosing: readonly For[], form: PipelineForm = { blockRegions: true, tvmGuards: true }): Stmt {
  const { blockRegions } = form;
  const annotation = readPipelineAnnotation(loop);
  if (loop.forKind !== "serial" && loop.forKind !== "unrolled") {
    const what = loop.forKind === "thread_binding" ? `bound to ${loop.threadTag ?? "a thread"}` : `a ${loop.forKind} loop`;
    throw pipelineError(loop, `is ${what}; only serial loops can be software-pipelined`);
  }
  const body = pipelineBody(loop);
  checkAnnotationFitsBody(loop, annotation, body.stmts.length, body.openedBlocks);
  const maxStage = Math.max(...annotation.stages);
  const tripCount = loop.extent.kind === "IntImm" ? loop.extent.value : undefined;

  const around = [...enclosing, loop];
  // Every statement becomes a block, as TVM blockizes them: its bounds check becomes the block's predicate.
  const stmts = body.stmts.map((stmt, position) => pipelineStmt(realizeBlock(stmt, blockRegions), position, annotation, around, body.allocs));
  const doubled = doubleBuffered(loop);
  const versions = new Map(body.allocs.map((b) => [b.data, versionCount(b, stmts, doubled)]));
  const allocated = new Set(body.allocs.map((b) => b.data));
  checkDependences(stmts, { loop, tripCount, versionsOf: (data) => versions.get(data) ?? 1, pipelineAllocated: allocated });
  checkAsyncProducers(loop, stmts, allocated);

  const versioned = new Map<Var, VersionedBuffer>();
  for (const b of body.allocs) {
    const n = versions.get(b.data)!;
    if (n > 1) versioned.set(b.data, { buffer: multiVersioned(b, n), versions: n });
  }
  const ordered = [...stmts].sort((a, b) => a.order - b.order);
  const sections = emitPipeline({
    loop,
    enclosing,
    ordered,
    maxStage,
    versioned,
    annotations: preservedAnnotations(loop),
    asyncQueues: annotation.asyncStages.size > 0 ? new AsyncQueues(loop.loopVar.name, ordered, blockRegions) : undefined,
    regions: blockRegions,
    tvmGuards: form.tvmGuards,
  });
  const allocs: Buffer[] = body.allocs.map((b) => versioned.get(b.data)?.buffer ?? b);
  const pipelined = seq(sections);
  return allocationBlock(doubled.size > 0 ? withoutDoubleBufferScopes(pipelined) : pipelined, allocs, blockRegions);
}

function pipelineStmt(stmt: Stmt, position: number, annotation: PipelineAnnotation, around: readonly For[], allocs: readonly Buffer[]): PipelineStmt {
  const stage = annotation.stages[position]!;
  return {
    position,
    stmt,
    stage,
    order: annotation.orders[position]!,
    isAsync: annotation.asyncStages.has(stage),
    accesses: stmtAccesses(stmt, around, allocs),
  };
}

/**
 * Asynchronous writes complete only at a wait, and only consumers inside the pipeline (in the
 * producer's stage or later) wait: an async stage may write only buffers allocated for the loop
 * body, read by no earlier stage.
 */
function checkAsyncProducers(loop: For, stmts: readonly PipelineStmt[], allocated: ReadonlySet<Var>): void {
  for (const producer of stmts.filter((s) => s.isAsync)) {
    for (const w of producer.accesses.writes) {
      if (!allocated.has(w.buffer.data)) {
        throw pipelineError(
          loop,
          `cannot run ${describeStmt(producer)} asynchronously: it writes ${w.buffer.name}, which is allocated outside the ` +
            `loop, where nothing waits for the copy to complete`,
        );
      }
      const early = stmts.find((r) => r.stage < producer.stage && readsData(r, w.buffer.data));
      if (early !== undefined) {
        throw pipelineError(
          loop,
          `cannot run ${describeStmt(producer)} asynchronously: ${describeStmt(early)} reads ${w.buffer.name} in an earlier ` +
            `stage, where it would not wait for the copy`,
        );
      }
    }
  }
}

/** The block allocating the pipeline's buffers, with the read and write regions of its body where asked (as in TVM). */
function allocationBlock(body: Stmt, allocs: readonly Buffer[], withRegions: boolean): BlockRealize {
  const holder = block({ name: "", body, allocBuffers: allocs });
  if (!withRegions) return blockRealize([], true, holder);
  const { reads, writes } = inferAccessRegions(holder);
  return blockRealize([], true, { ...holder, reads, writes });
}
