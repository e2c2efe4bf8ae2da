/**
 * Turns the sampled `meta_schedule.shared_transpose` knob of a shared copy block into its layout:
 * with 1, the tile is stored with dimension `meta_schedule.shared_transpose_axis` last
 * (transformLayout) and its rows padded to 16 bytes past a multiple of 32 words (storageAlign),
 * so that each thread reads its slice with vector loads and the transposed stores do not all hit
 * one bank — the A tile of a hand-tuned SGEMM.
 *
 * And the tensor-core rule's `meta_schedule.shared_swizzle` knob: 1 gives the tile swizzleLayout's
 * permuted (XOR-swizzled) layout, 0 rows padded by 16 bytes (TVM's storage_align(32, 8) for fp16).
 */
import { bytesOf } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { moveAxisLast } from "../rules/multi-level-tiling/access-pattern.js";
import { SHARED_SWIZZLE, SHARED_TRANSPOSE, SHARED_TRANSPOSE_AXIS, annotationNumber } from "../schedule-utils/annotations.js";
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
    for (const { rv, node, value } of annotatedBlocks(sch, SHARED_SWIZZLE)) {
      sch.unannotate(rv, SHARED_SWIZZLE);
      const tile = node.writes[0]?.buffer;
      if (tile === undefined) continue;
      if (value === 1) sch.swizzleLayout(rv, 0, "permuted");
      else sch.storageAlign(rv, 0, -2, 32, Math.max(1, 16 / bytesOf(tile.dtype)));
    }
    return POSTPROC_OK;
  }
}
