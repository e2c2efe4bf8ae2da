import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { DEFAULT_CUDA_TILING, MultiLevelTiling } from "../../src/rules/multi-level-tiling/index.js";
import { contextOf, rowSum } from "./helpers.js";

describe("MultiLevelTiling on a block that does not need it", () => {
  it("leaves the schedule and its trace as they were (asking records no GetLoops)", () => {
    // B[i] += A[i, k]: the only spatial iterator is used by the only read, so there is no reuse.
    const func = rowSum(4, 128);
    const ctx = contextOf(func);
    const sch = new Schedule(func, { seed: 3 });
    const block = sch.getBlock("B");
    const before = sch.trace.instructions.length;
    const out = new MultiLevelTiling(DEFAULT_CUDA_TILING).apply(sch, block, ctx);
    expect(out).toEqual([sch]);
    expect(sch.trace.instructions).toHaveLength(before);
  });
});
