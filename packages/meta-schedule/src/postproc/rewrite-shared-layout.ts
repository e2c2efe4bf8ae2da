/**
 * Turns the sampled `meta_schedule.shared_transpose` knob of a shared copy block into its layout:
 * with 1, the tile is stored with dimension `meta_schedule.shared_transpose_axis` last
 * (transformLayout) and its rows padded to 16 bytes past a multiple of 32 words (storageAlign),
 * so that each thread reads its slice with vector loads and the transposed stores do not all hit
 * one bank — the A tile of a hand-tuned SGEMM.
 */
import { bytesOf } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { moveAxisLast } from "../rules/multi-level-tiling/access-pattern.js";
import { SHARED_TRANSPOSE, SHARED_TRANSPOSE_AXIS, annotationNumber } from "../schedule-utils/annotations.js";
import type { TuneContext } from "../tune-context.js";
import { annotatedBlocks } from "./annotated.js";
import { POSTPROC_OK, type Postproc, type PostprocResult } from "../interfaces/postproc.js";

export class RewriteSharedLayout implements Postproc {
  readonly name = "rewriteSharedLayout";

  apply(sch: Schedule, _ctx: TuneContext): PostprocResult {
    for (const { rv, node, value } of annotatedBlocks(sch, SHARED_TRANSPOSE)) {
      const axis = annotationNumber(node.annotations, SHARED_TRANSPOSE_AXIS);
      sch.unannotate(rv, SHARED_TRANSPOSE);
      if (axis !== undefined) sch.unannotate(rv, SHARED_TRANSPOSE_AXIS);
      const tile = node.writes[0]?.buffer;
      if (value !== 1 || axis === undefined || tile === undefined) continue;
      const ndim = tile.shape.length;
      if (axis < 0 || axis >= ndim - 1) continue;
      const perm = moveAxisLast(axis, ndim);
      sch.transformLayout(rv, ["write", 0], (...idx) => perm.map((d) => idx[d]!));
      const padWords = Math.max(1, 16 / bytesOf(tile.dtype));
      sch.storageAlign(rv, 0, ndim - 2, 32, padWords);
    }
    return POSTPROC_OK;
  }
}
