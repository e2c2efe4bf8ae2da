/**
 * Turns the sampled `meta_schedule.operand_slices_in_registers` knob of a loop (MultiLevelTiling
 * puts it on the inner reduction level) into register caches: with 1, every shared-memory operand
 * of the tiled block below is read once per iteration of the loop into a local slice
 * (cache_read "local" + compute_at), with vector loads where the slice's rows are provably aligned
 * (the operand's last index is an iterator alone).
 */
import { bytesOf } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { OPERAND_SLICES, TILING_STRUCTURE } from "../schedule-utils/annotations.js";
import { loadIndicesOf } from "../rules/multi-level-tiling/block-query.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { annotatedLoops, firstBlockWith } from "./annotated.js";
import { ownLoops } from "./own-loops.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";

export class RewriteOperandSlices implements Postproc {
  readonly name = "rewriteOperandSlices";

  apply(sch: Schedule, ctx: TuneContext): PostprocResult {
    for (const { rv: loop, node, value } of annotatedLoops(sch, OPERAND_SLICES)) {
      sch.unannotate(loop, OPERAND_SLICES);
      if (value !== 1) continue;
      const computeNode = firstBlockWith(node, (b) => b.annotations[TILING_STRUCTURE] !== undefined);
      if (computeNode === undefined) continue;
      const compute = sch.getBlock(computeNode.name);
      const shared = computeNode.reads.map((r, index) => ({ index, buffer: r.buffer })).filter((r) => r.buffer.scope === "shared");
      for (const operand of shared) {
        const indices = loadIndicesOf(computeNode, operand.buffer);
        const slice = sch.cacheRead(compute, operand.index, "local");
        sch.computeAt(slice, loop, true);
        const own = ownLoops(sch, slice);
        const last = own.at(-1);
        const lastIndex = indices?.at(-1);
        if (last === undefined || lastIndex?.kind !== "Var") continue;
        const extent = sch.get(last).extent;
        if (extent.kind !== "IntImm") continue;
        const maxLanes = Math.max(1, gpuTargetOf(ctx, "RewriteOperandSlices").maxVectorBytes / bytesOf(operand.buffer.dtype));
        const rowLast = operand.buffer.shape.at(-1);
        let lanes = Math.min(4, maxLanes);
        while (lanes > 1 && (extent.value % lanes !== 0 || rowLast?.kind !== "IntImm" || rowLast.value % lanes !== 0)) lanes /= 2;
        if (lanes <= 1) continue;
        sch.vectorize(extent.value === lanes ? last : sch.split(last, [null, lanes])[1]);
      }
    }
    return POSTPROC_OK;
  }
}
