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
import { type Schedule, wgmmaKMajorLayout, wgmmaSharedLayout } from "@tessera/schedule";
import { moveAxisLast } from "../rules/multi-level-tiling/access-pattern.js";
import { SHARED_SWIZZLE, SHARED_TRANSPOSE, SHARED_TRANSPOSE_AXIS, WGMMA_SHARED_LAYOUT, annotationNumber } from "../schedule-utils/annotations.js";
import type { TuneContext } from "../tune-context.js";
import { annotatedBlocks } from "./annotated.js";
import { ownLoops } from "./own-loops.js";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";

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
    for (const { rv, node } of annotatedBlocks(sch, WGMMA_SHARED_LAYOUT)) {
      const major = annotationString(node.annotations[WGMMA_SHARED_LAYOUT]);
      sch.unannotate(rv, WGMMA_SHARED_LAYOUT);
      // The tile: the extents of the copy's own loops (its buffer keeps the full shape until lowering compacts it).
      const shape = ownLoops(sch, rv).map((l) => {
        const e = sch.get(l).extent;
        return e.kind === "IntImm" ? e.value : 0;
      });
      if (shape.length !== 2 || (major !== "K" && major !== "MN"))
        return rejected("wgmma shared layout needs a 2-D tile and K or MN", `block ${node.name}: ${major ?? "no layout"} of a ${shape.join("×")} tile`);
      try {
        // float32 tiles (tf32 wgmmas) are K-major only: 32 elements a 128-byte swizzle row.
        const float32 = node.writes[0] !== undefined && bytesOf(node.writes[0].buffer.dtype) === 4;
        sch.swizzleLayout(
          rv,
          0,
          major === "K" && float32 ? wgmmaKMajorLayout(shape[0]!, shape[1]!, 4) : wgmmaSharedLayout(major === "K" ? "A" : "B", shape[0]!, shape[1]!),
        );
      } catch (err) {
        if (!(err instanceof RangeError)) throw err;
        return rejected("the tile does not take wgmma's shared layout", `block ${node.name}: ${err.message}`);
      }
    }
    return POSTPROC_OK;
  }
}

/** A string annotation (a string, or a string immediate after a round trip through TVMScript). */
function annotationString(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  const imm = value as { kind?: string; value?: unknown } | undefined;
  return imm?.kind === "StringImm" && typeof imm.value === "string" ? imm.value : undefined;
}
