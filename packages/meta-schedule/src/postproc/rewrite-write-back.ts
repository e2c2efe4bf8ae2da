/**
 * Vectorizes the write-back of tiled accumulators (blocks annotated
 * `meta_schedule.vectorize_write_back` by MultiLevelTiling): the innermost own loop of the block,
 * by the widest width (≤ 16 bytes) that divides its extent and the last dimension of every buffer
 * the block touches, when every access indexes its last dimension by an iterator alone (so the
 * vectors are provably aligned). The epilogue fused into the write-back is vectorized with it.
 */
import { type Block, bytesOf, forEachExpr } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { VECTORIZE_WRITE_BACK } from "../schedule-utils/annotations.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedBlocks } from "./annotated.js";
import { ownLoops } from "./own-loops.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";

export class RewriteWriteBack implements Postproc {
  readonly name = "rewriteWriteBack";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv, node } of annotatedBlocks(sch, VECTORIZE_WRITE_BACK)) {
      sch.unannotate(rv, VECTORIZE_WRITE_BACK);
      const last = ownLoops(sch, rv).at(-1);
      if (last === undefined || !lastIndicesArePlain(node)) continue;
      const extent = sch.get(last).extent;
      if (extent.kind !== "IntImm") continue;
      const buffers = [...node.reads, ...node.writes].map((r) => r.buffer);
      const widest = Math.min(...buffers.map((b) => gpuTargetOf(ctx, "RewriteWriteBack").maxVectorBytes / bytesOf(b.dtype)));
      let lanes = Math.min(4, Math.max(1, Math.floor(widest)));
      const fits = (l: number) =>
        extent.value % l === 0 && buffers.every((b) => b.shape.at(-1)?.kind === "IntImm" && (b.shape.at(-1) as { value: number }).value % l === 0);
      while (lanes > 1 && !fits(lanes)) lanes /= 2;
      if (lanes <= 1) continue;
      sch.vectorize(extent.value === lanes ? last : sch.split(last, [null, lanes])[1]);
    }
    return POSTPROC_OK;
  }
}

/** Every load and store of the block indexes its last dimension by a single iterator. */
function lastIndicesArePlain(block: Block): boolean {
  let plain = block.body.kind === "BufferStore" && block.body.indices.at(-1)?.kind === "Var";
  forEachExpr(block.body, (e) => {
    if (e.kind === "BufferLoad" && e.indices.at(-1)?.kind !== "Var") plain = false;
  });
  return plain;
}
