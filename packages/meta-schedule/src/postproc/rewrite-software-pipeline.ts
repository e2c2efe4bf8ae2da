/**
 * Turns the sampled `meta_schedule.software_pipeline` knob into pipeline stages and order, derived from
 * what each statement of the loop body does (docs/architecture/meta-schedule-notes.md); with
 * `meta_schedule.software_pipeline_async` the fetches become cp.async copies, and with
 * `meta_schedule.software_pipeline_tma` as well TMA loads (`tma_copy` on each fetch block).
 */
import { type Block, type Stmt, bytesOf, forEachStmt } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { TMA_COPY } from "@tessera/ir";
import { AUTO_TENSORIZE, SOFTWARE_PIPELINE, SOFTWARE_PIPELINE_ASYNC, SOFTWARE_PIPELINE_TMA, annotationNumber } from "../schedule-utils/annotations.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedLoops, firstBlockUnder } from "./annotated.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";

type Role = "load" | "store" | "compute";

export class RewriteSoftwarePipeline implements Postproc {
  readonly name = "rewriteSoftwarePipeline";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node, value } of annotatedLoops(sch, SOFTWARE_PIPELINE)) {
      sch.unannotate(rv, SOFTWARE_PIPELINE);
      const async = annotationNumber(node.annotations, SOFTWARE_PIPELINE_ASYNC) === 1;
      if (node.annotations[SOFTWARE_PIPELINE_ASYNC] !== undefined) sch.unannotate(rv, SOFTWARE_PIPELINE_ASYNC);
      const tma = annotationNumber(node.annotations, SOFTWARE_PIPELINE_TMA) === 1;
      if (node.annotations[SOFTWARE_PIPELINE_TMA] !== undefined) sch.unannotate(rv, SOFTWARE_PIPELINE_TMA);
      // How many iterations the compute runs behind the stores (each one more shared buffer).
      const lag = value ?? 0;
      if (!Number.isInteger(lag) || lag < 1) continue;
      const body = sch.get(rv).body;
      const stmts: readonly Stmt[] = body.kind === "SeqStmt" ? body.seq : [body];
      const roles = stmts.map(roleOf);
      const computes = roles.filter((r) => r === "compute").length;
      const staged = roles.includes("load");
      // The computes close the body: one after register loads (the staged form), one or more after
      // shared stores alone (3xTF32's chunk: its zero fill, the k steps, the add into the main accumulator).
      const firstCompute = roles.indexOf("compute");
      const computesLast = firstCompute >= 0 && roles.slice(firstCompute).every((r) => r === "compute");
      if (!computesLast || (staged && computes !== 1) || !roles.includes("store")) continue;
      const sharedBytes = stmts.reduce((sum, st, k) => sum + (roles[k] === "store" ? tileBytes(st) : 0), 0);
      // An asynchronous compute (wgmma) reads its tiles one iteration longer: one version more.
      const versions = lag + (stmts.some((st, k) => roles[k] === "compute" && readsAsynchronously(st)) ? 2 : 1);
      if (versions * sharedBytes > sharedLimit(stmts, roles, gpuTargetOf(ctx, "RewriteSoftwarePipeline"))) continue;
      const stageOf: Record<Role, number> = staged ? { load: 0, store: 1, compute: 1 + lag } : { load: 0, store: 0, compute: lag };
      const stages = roles.map((r) => stageOf[r]);
      const rank: Record<Role, number> = staged ? { store: 0, load: 1, compute: 2 } : { load: 0, store: 0, compute: 1 };
      const byOrder = roles.map((r, k) => ({ r, k })).sort((a, b) => rank[a.r] - rank[b.r] || a.k - b.k);
      const order = new Array<number>(roles.length);
      byOrder.forEach(({ k }, position) => (order[k] = position));
      // A statement that is a pipelined loop itself becomes three (its prologue, body and epilogue)
      // before this loop's pipeline runs: one entry for each, at its stage, in order.
      const widths = stmts.map((st) => (isPipelinedLoop(st) ? INNER_PIPELINE_STATEMENTS : 1));
      const expandedOrder = order.map((position) => order.reduce((sum, p, k) => sum + (p < position ? widths[k]! : 0), 0));
      sch.annotate(
        rv,
        "software_pipeline_stage",
        stages.flatMap((stage, k) => Array<number>(widths[k]!).fill(stage)),
      );
      sch.annotate(
        rv,
        "software_pipeline_order",
        expandedOrder.flatMap((first, k) => Array.from({ length: widths[k]! }, (_, w) => first + w)),
      );
      // Without a register stage the shared stores are stage 0: cp.async can issue them, when each
      // copies 4, 8 or 16 bytes (a narrower fetch stays synchronous).
      const asyncable = stmts.every((st, k) => roles[k] !== "store" || CP_ASYNC_BYTES.has(storeBytes(st)));
      if (async && !staged && asyncable) {
        sch.annotate(rv, "software_pipeline_async_stages", [0]);
        // TMA in place of cp.async: every fetch of the stage (lowerTmaCopy refuses a stage that mixes them).
        if (tma) for (const [k, st] of stmts.entries()) if (roles[k] === "store") sch.annotate(sch.getBlock(firstBlockUnder(st)!.name), TMA_COPY, 1);
      }
    }
    return POSTPROC_OK;
  }
}

/** Shared memory a block may use: the opt-in limit where every tile is in dynamic shared memory, else the static limit. */
function sharedLimit(
  stmts: readonly Stmt[],
  roles: readonly Role[],
  t: { maxSharedMemoryPerBlock: number; maxSharedMemoryPerBlockOptin?: number | undefined },
): number {
  const dynamic = stmts.every((st, k) => roles[k] !== "store" || firstBlockUnder(st)?.writes[0]?.buffer.scope === "shared.dyn");
  return dynamic ? (t.maxSharedMemoryPerBlockOptin ?? t.maxSharedMemoryPerBlock) : t.maxSharedMemoryPerBlock;
}

/** Whether a compute statement holds a block to be tensorized with a wgmma (which reads shared memory asynchronously). */
function readsAsynchronously(s: Stmt): boolean {
  let wgmma = false;
  forEachStmt(s, (n) => {
    if (n.kind === "BlockRealize" && JSON.stringify(n.block.annotations[AUTO_TENSORIZE] ?? "").includes("wgmma")) wgmma = true;
  });
  return wgmma;
}

/** The statements a pipelined loop becomes: its prologue, body and epilogue. */
const INNER_PIPELINE_STATEMENTS = 3;

/** Whether `s` is a loop pipelined on its own (`software_pipeline_stage` set by a rule, as the register-A wgmma k steps). */
function isPipelinedLoop(s: Stmt): boolean {
  return s.kind === "For" && s.annotations["software_pipeline_stage"] !== undefined;
}

/** The widths a cp.async copies. */
const CP_ASYNC_BYTES: ReadonlySet<number> = new Set([4, 8, 16]);

/** Bytes one store of a copy statement writes: its vectorized loop's lanes times the element size. */
function storeBytes(s: Stmt): number {
  let lanes = 1;
  forEachStmt(s, (n) => {
    if (n.kind === "For" && n.forKind === "vectorized") lanes = n.extent.kind === "IntImm" ? n.extent.value : 1;
  });
  const block = firstBlockUnder(s);
  return lanes * (block === undefined ? 4 : bytesOf(block.writes[0]!.buffer.dtype));
}

/** Bytes of the tile a copy statement writes: its loops' extents times the element size (an upper bound). */
function tileBytes(s: Stmt): number {
  let elements = 1;
  forEachStmt(s, (n) => {
    if (n.kind === "For") elements *= n.extent.kind === "IntImm" ? n.extent.value : 1;
  });
  const block = firstBlockUnder(s);
  return elements * (block === undefined ? 4 : bytesOf(block.writes[0]!.buffer.dtype));
}

function roleOf(s: Stmt): Role {
  const block: Block | undefined = firstBlockUnder(s);
  if (block === undefined || block.writes.length !== 1 || block.reads.length !== 1) return "compute";
  const to = block.writes[0]!.buffer.scope;
  const from = block.reads[0]!.buffer.scope;
  if (to === "local" && from === "global") return "load";
  if (to === "shared" || to === "shared.dyn") return "store";
  return "compute";
}
