/** pipelineRegisterOperandLoads: the k-step loop of register fragment loads and a compute tile, pipelined one step ahead. */
import { gemmReluAdd } from "@tessera/ir";
import { describe, expect, it } from "vitest";
import { Schedule, ScheduleError, pipelineRegisterOperandLoads } from "../src/index.js";

/** The gemm's k loop holding a register copy of A (computed there) and the gemm block: loads, then compute. */
function stepLoop() {
  const sch = new Schedule(gemmReluAdd(64).func);
  const gemm = sch.getBlock("gemm");
  const k = sch.getLoops(gemm).at(-1)!;
  const aLocal = sch.cacheRead(gemm, 0, "local");
  sch.computeAt(aLocal, k);
  return { sch, gemm, k, aLocal };
}

describe("pipelineRegisterOperandLoads", () => {
  it("puts the loads in stage 0 and the compute in stage 1, the compute first in the order, double-buffers the loads and unrolls the loop", () => {
    const { sch, k, aLocal } = stepLoop();
    const body = sch.getChildBlocks(k).map((b) => sch.get(b).name);
    pipelineRegisterOperandLoads(sch, k, [aLocal]);
    const loads = body.map((name) => name === sch.get(aLocal).name);
    expect(loads).toContain(true);
    expect(sch.get(k).annotations["software_pipeline_stage"]).toEqual(loads.map((l) => (l ? 0 : 1)));
    expect(sch.get(k).annotations["software_pipeline_order"]).toEqual(loads.map((l) => (l ? 1 : 0)));
    expect(sch.get(aLocal).annotations["double_buffer_scope"]).toBe(0);
    expect(sch.get(k).forKind).toBe("unrolled");
  });

  it("refuses a loop that does not hold exactly the loads and one compute block, naming the loop", () => {
    const { sch, gemm, k, aLocal } = stepLoop();
    const refusal = (() => {
      try {
        pipelineRegisterOperandLoads(sch, k, [aLocal, gemm]);
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(refusal).toBeInstanceOf(ScheduleError);
    expect((refusal as ScheduleError).message).toMatch(
      /the k-step loop must hold the 2 fragment load\(s\) and the wgmma tile, and nothing else; it holds 2 block\(s\), 2 of them the loads/,
    );
    expect((refusal as ScheduleError).locations).toEqual([sch.get(k)]);
    // Nothing was annotated.
    expect(sch.get(k).annotations["software_pipeline_stage"]).toBeUndefined();
  });
});
