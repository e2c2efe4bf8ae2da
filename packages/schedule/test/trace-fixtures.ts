import { gemmReluAdd } from "@tessera/ir";
import { Schedule } from "../src/index.js";

export const FUNC = gemmReluAdd(128).func;

/**
 * A schedule exercising lookups, every sampling kind and the loop / compute-location / cache
 * primitives. `tile` is the decision of the perfect tile (sampled when absent).
 */
export function scheduleGemm(seed: number, tile?: number[]): Schedule {
  const sch = new Schedule(FUNC, { seed });
  const b0 = sch.getBlock("gemm");
  const [l1, l2] = sch.getLoops(b0);
  const vs = sch.samplePerfectTile(l1!, 4, 64, tile);
  const [l8, l9] = sch.split(l1!, vs);
  const [l12, l13] = sch.split(l2!, [null, 32]);
  sch.reorder(l8!, l12!, l9!, l13!);
  const f = sch.fuse(l8!, l12!);
  const v = sch.sampleCategorical([0, 16, 64], [0.25, 0.25, 0.5]);
  sch.annotate(b0, "pragma_auto_unroll_max_step", v);
  sch.bind(f, "blockIdx.x");
  const relu = sch.getBlock("relu");
  sch.computeAt(relu, sch.sampleComputeLocation(relu));
  const c = sch.cacheRead(b0, 0, "shared");
  sch.computeAt(c, l9!, true);
  return sch;
}
