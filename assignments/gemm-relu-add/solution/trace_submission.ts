/**
 * INSTRUCTOR SOLUTION — never part of the handout.
 *
 * The trace of solution/auto_tuning.ts with the tile sizes fixed to 128×128 per thread block,
 * 8×8 per thread (256 threads) and k chunks of 32 (32 KB of shared memory), printed by
 * `sch.trace.show()` and pasted below unchanged, exactly as a student submits it.
 */
import type { Schedule } from "@tessera/schedule";

export function applyTrace(sch: Schedule): void {
  const b0 = sch.getBlock("gemm");
  const [l1, l2, l3] = sch.getLoops(b0);
  const [v4, v5, v6] = sch.samplePerfectTile(l1, 3, 8, [16, 16, 8]);
  const [v7, v8, v9] = sch.samplePerfectTile(l2, 3, 8, [16, 16, 8]);
  const [v10, v11, v12] = sch.samplePerfectTile(l3, 3, 4, [64, 32, 1]);
  const [l13, l14, l15] = sch.split(l1, [v4, v5, v6]);
  const [l16, l17, l18] = sch.split(l2, [v7, v8, v9]);
  const [l19, l20, l21] = sch.split(l3, [v10, v11, v12]);
  sch.reorder(l13, l16, l19, l14, l17, l20, l21, l15, l18);
  sch.bind(l13, "blockIdx.x");
  sch.bind(l16, "blockIdx.y");
  sch.bind(l14, "threadIdx.x");
  sch.bind(l17, "threadIdx.y");
  const b22 = sch.cacheRead(b0, 0, "shared");
  const b23 = sch.cacheRead(b0, 1, "shared");
  sch.computeAt(b22, l19);
  sch.computeAt(b23, l19);
  const b24 = sch.cacheRead(b0, 0, "local");
  const b25 = sch.cacheRead(b0, 1, "local");
  sch.computeAt(b24, l21);
  sch.computeAt(b25, l21);
  const [_l26, _l27, _l28, l29, l30] = sch.getLoops(b22);
  const l31 = sch.fuse(l29, l30);
  const [_l32, l33, l34] = sch.split(l31, [null, v5, v8]);
  sch.bind(l33, "threadIdx.x");
  sch.bind(l34, "threadIdx.y");
  const [_l35, _l36, _l37, l38, l39] = sch.getLoops(b23);
  const l40 = sch.fuse(l38, l39);
  const [_l41, l42, l43] = sch.split(l40, [null, v5, v8]);
  sch.bind(l42, "threadIdx.x");
  sch.bind(l43, "threadIdx.y");
  const b44 = sch.getBlock("gemm");
  const b45 = sch.cacheWrite(b44, 0, "local");
  const [_l46, _l47, _l48, _l49, l50, _l51, _l52, _l53, _l54] = sch.getLoops(b44);
  sch.reverseComputeAt(b45, l50);
  const b55 = sch.getBlock("relu");
  sch.reverseComputeInline(b55);
  const b56 = sch.getBlock("add");
  sch.reverseComputeInline(b56);
}
