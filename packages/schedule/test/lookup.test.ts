import { gemmReluAdd, structuralEqual } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { BlockNotFoundError } from "../src/error-catalogue.js";
import { LoopRV, Schedule, ScheduleError } from "../src/index.js";

describe("lookups", () => {
  it("finds blocks, loops, children, producers and consumers", () => {
    const func = gemmReluAdd(64).func;
    const sch = new Schedule(func);
    const gemm = sch.getBlock("gemm");
    const relu = sch.getBlock("relu");
    const add = sch.getBlock("add");
    expect(sch.getLoops(gemm).map((l) => sch.get(l).loopVar.name)).toEqual(["i", "j", "k"]);
    expect(sch.getConsumers(gemm).map((b) => sch.get(b).name)).toEqual(["relu"]);
    expect(sch.getProducers(add).map((b) => sch.get(b).name)).toEqual(["relu"]);
    expect(sch.getProducers(relu).map((b) => sch.get(b).name)).toEqual(["gemm"]);
    const [i] = sch.getLoops(relu);
    expect(sch.getChildBlocks(i!).map((b) => sch.get(b).name)).toEqual(["relu"]);
    // Lookups do not change the IR, and the schedule never mutates the caller's function.
    expect(structuralEqual(sch.func, func)).toBe(true);
    expect(sch.trace.instructions.map((x) => x.kind.name)).toEqual([
      "GetBlock",
      "GetBlock",
      "GetBlock",
      "GetLoops",
      "GetConsumers",
      "GetProducers",
      "GetProducers",
      "GetLoops",
      "GetChildBlocks",
    ]);
  });

  it("reports an unknown block with the IR and the known names", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    let err: unknown;
    try {
      sch.getBlock("gem");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(BlockNotFoundError);
    expect(err).toBeInstanceOf(ScheduleError);
    const msg = (err as Error).message;
    expect(msg).toContain("An error occurred in the schedule primitive 'get-block'");
    expect(msg).toContain("The IR with diagnostic is:");
    expect(msg).toContain('Cannot find a block with the name: gem (blocks in the function: "root", "gemm", "relu", "add")');
    expect(sch.trace.instructions).toHaveLength(0);
  });

  it("rejects something that is not a function or module", () => {
    expect(() => new Schedule(undefined as never)).toThrow(/expects a PrimFunc or an IRModule, got undefined/);
    expect(() => new Schedule({ kind: "Var" } as never)).toThrow(ScheduleError);
  });

  it("rejects a handle of the wrong kind without a TypeError", () => {
    const sch = new Schedule(gemmReluAdd(16).func);
    expect(() => sch.getLoops(LoopRV.ROOT as never)).toThrow(/expected a block handle/);
  });
});
