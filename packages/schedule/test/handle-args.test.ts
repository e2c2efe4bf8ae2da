import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { Schedule, ScheduleUsageError } from "../src/index.js";
import { expectScheduleError } from "./support.js";

const FUNC = gemmReluAdd(64).func;

describe("handle arguments that may be undefined (destructured lookups)", () => {
  it("split names the undefined loop and the likely cause", () => {
    const sch = new Schedule(FUNC);
    const [, , , fourth] = sch.getLoops(sch.getBlock("gemm"));
    expectScheduleError(
      sch,
      () => sch.split(fourth, [null, 32]),
      ScheduleUsageError,
      "split: argument `loop` is undefined — did getLoops return fewer loops than you destructured?",
    );
  });

  it("reports the position of an undefined loop in reorder and fuse", () => {
    const sch = new Schedule(FUNC);
    const [i, j, k, missing] = sch.getLoops(sch.getBlock("gemm"));
    expectScheduleError(sch, () => sch.reorder(k, i, missing, j), ScheduleUsageError, "reorder: argument `loops[2]` is undefined");
    expectScheduleError(sch, () => sch.fuse(i, missing), ScheduleUsageError, "fuse: argument `loops[1]` is undefined");
  });

  it("rejects undefined blocks, consumer blocks and annotation values", () => {
    const sch = new Schedule(FUNC);
    const gemm = sch.getBlock("gemm");
    const [, missing] = sch.getConsumers(gemm);
    const [i] = sch.getLoops(gemm);
    expectScheduleError(sch, () => sch.computeAt(missing, i), ScheduleUsageError, "computeAt: argument `block` is undefined — did getChildBlocks");
    expectScheduleError(sch, () => sch.cacheRead(gemm, 0, "shared", [missing]), ScheduleUsageError, "cacheRead: argument `consumerBlocks[0]` is undefined");
    const [, v] = sch.samplePerfectTile(i, 2, 16);
    expect(v).toBeDefined();
    const vs = sch.samplePerfectTile(i, 2 as number, 16);
    expectScheduleError(sch, () => sch.annotate(gemm, "k", vs[5]), ScheduleUsageError, "annotate: argument `value` is undefined");
    expect(() => sch.get(missing)).toThrow(/get: argument `rv` is undefined/);
  });
});
