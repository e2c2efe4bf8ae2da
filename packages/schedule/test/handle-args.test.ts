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

describe("blocks and buffers passed by name (TVM's string arguments)", () => {
  it("looks a block name up with getBlock, recorded in the trace, and replays the same", () => {
    const sch = new Schedule(FUNC);
    const gemmLoops = sch.getLoops("gemm");
    sch.cacheRead("gemm", "A", "shared");
    const kinds = sch.trace.instructions.map((i) => i.kind.name);
    expect(kinds).toEqual(["GetBlock", "GetLoops", "GetBlock", "CacheRead"]);
    expect(sch.trace.instructions[3]!.attrs[0]).toBe(0);
    expect(gemmLoops).toHaveLength(3);
    const replay = new Schedule(FUNC);
    sch.trace.applyTo(replay);
    expect(replay.script()).toBe(sch.script());
  });

  it("names a buffer the block does not access, or accesses the other way", () => {
    const sch = new Schedule(FUNC);
    const gemm = sch.getBlock("gemm");
    expectScheduleError(
      sch,
      () => sch.cacheWrite(gemm, "Q", "local"),
      ScheduleUsageError,
      `cacheWrite: block "gemm" neither reads nor writes a buffer named "Q"`,
    );
    expectScheduleError(
      sch,
      () => sch.cacheWrite(gemm, "A", "local"),
      ScheduleUsageError,
      `buffer "A" is a read buffer of block "gemm", expected a write buffer`,
    );
  });
});
