import { Schedule } from "@tessera/schedule";
import { describe, expect, it } from "vitest";
import { autoTuningSchedule } from "../solution/auto_tuning.js";
import * as solution from "../solution/gemm_relu_add.js";
import { applyTrace } from "../solution/trace_submission.js";
import { maxExcessError } from "./numerics.js";

const SIZE = 256; // every tile size of the course (64, 4, 1) divides it
const RTOL = 1e-4;
const ATOL = 1e-4;

describe("instructor solution, part 1", () => {
  it("the five tasks on a 256³ schedule compute what the unscheduled function does", () => {
    const t = solution.MANUAL_TILE_SIZES;
    const sch = new Schedule(solution.workload(SIZE));
    const [aShared, bShared] = solution.sharedMemoryTiling(sch, t.tileX, t.tileY, t.tileK);
    solution.registerTiling(sch, t.threadTileX, t.threadTileY, t.threadTileK);
    solution.cooperativeFetching(sch, aShared, bShared, t.tileX / t.threadTileX, t.tileY / t.threadTileY);
    solution.writeCache(sch);
    solution.epilogueFusion(sch);
    expect(maxExcessError(sch.func, solution.workload(SIZE), 1, RTOL)).toBeLessThanOrEqual(ATOL);
  });

  it("the tasks also work with other tile sizes that divide the problem", () => {
    const sch = new Schedule(solution.workload(128));
    const [aShared, bShared] = solution.sharedMemoryTiling(sch, 32, 64, 16);
    solution.registerTiling(sch, 4, 8, 2);
    solution.cooperativeFetching(sch, aShared, bShared, 8, 8);
    solution.writeCache(sch);
    solution.epilogueFusion(sch);
    expect(maxExcessError(sch.func, solution.workload(128), 2, RTOL)).toBeLessThanOrEqual(ATOL);
  });

  it("manualSchedule(256) and the naive schedule are correct too", () => {
    expect(maxExcessError(solution.manualSchedule(SIZE).func, solution.workload(SIZE), 3, RTOL)).toBeLessThanOrEqual(ATOL);
    const naive = new Schedule(solution.workload(SIZE));
    solution.naiveSchedule(naive);
    expect(maxExcessError(naive.func, solution.workload(SIZE), 4, RTOL)).toBeLessThanOrEqual(ATOL);
  });

  it("the manual schedule ends with the epilogue in the write-back: only D, the caches and the stages remain", () => {
    const text = solution.manualSchedule(SIZE).script();
    for (const name of ["A_shared", "B_shared", "A_shared_local", "B_shared_local", "matmul_local"]) expect(text).toContain(`"${name}"`);
    expect(text).not.toContain('T.block("relu")');
    expect(text).not.toContain('T.block("add")');
  });
});

describe("instructor solution, part 2", () => {
  it("autoTuningSchedule samples correct schedules", () => {
    for (const seed of [1, 2, 3]) {
      const sch = new Schedule(solution.workload(128), { seed });
      autoTuningSchedule(sch);
      expect(maxExcessError(sch.func, solution.workload(128), seed, RTOL)).toBeLessThanOrEqual(ATOL);
    }
  });

  it("the submitted applyTrace replays on a fresh 2048³ schedule", () => {
    const sch = new Schedule(solution.workload());
    applyTrace(sch);
    const text = sch.script();
    expect(text).toContain('thread="blockIdx.x"');
    expect(text).toContain('T.alloc_buffer((2048, 2048), scope="shared")');
    expect(text).not.toContain('T.block("relu")');
  });

  it("the submitted trace is the tuning schedule with fixed decisions (re-printing it gives the same text)", () => {
    const sch = new Schedule(solution.workload());
    applyTrace(sch);
    const printed = sch.trace.show();
    expect(printed).toContain("sch.samplePerfectTile(l1, 3, 8, [16, 16, 8])");
    expect(printed).toContain("sch.samplePerfectTile(l3, 3, 4, [64, 32, 1])");
  });
});
