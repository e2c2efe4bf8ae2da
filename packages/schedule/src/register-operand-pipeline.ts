/**
 * The k-step loop of a register-operand wgmma GEMM (`wgmma_…_rs`: A's fragments loaded into
 * registers a k step at a time, beside the wgmma tile), software-pipelined so that the wgmmas of
 * step s are issued before the loads of step s + 1: stages [0, …, 0, 1] (the loads 0, the wgmma
 * tile 1), the wgmma tile first in the order, the fragments double-buffered (`double_buffer_scope`:
 * the wgmmas read them until their group retires, after the next loads) and the loop unrolled, so
 * that each version is its own registers. injectWgmmaSync then waits before the loads for all but
 * the step's wgmmas (`wait_group` of their groups) instead of for every group. Used by the corpus's
 * hand schedules and the tensor-core design spaces alike.
 */
import { ScheduleError } from "./errors.js";
import type { BlockRV, LoopRV } from "./handles.js";
import type { Schedule } from "./schedule.js";

/** Pipelines the k-step loop `step`, whose body is the (tensorized) fragment loads `loads` and the wgmma tile. */
export function pipelineRegisterOperandLoads(sch: Schedule, step: LoopRV, loads: readonly BlockRV[]): void {
  const body = sch.getChildBlocks(step);
  const loadBlocks = new Set(loads.map((l) => sch.get(l)));
  const isLoad = body.map((b) => loadBlocks.has(sch.get(b)));
  if (isLoad.filter(Boolean).length !== loads.length || body.length !== loads.length + 1) {
    throw new ScheduleError(
      "pipeline-register-operand-loads",
      `the k-step loop must hold the ${loads.length} fragment load(s) and the wgmma tile, and nothing else; it holds ${body.length} block(s), ${isLoad.filter(Boolean).length} of them the loads`,
      [sch.get(step)],
    );
  }
  for (const l of loads) sch.annotate(l, "double_buffer_scope", 0);
  sch.annotate(
    step,
    "software_pipeline_stage",
    isLoad.map((l) => (l ? 0 : 1)),
  );
  // The wgmma tile first, then the loads in their order.
  let next = 1;
  sch.annotate(
    step,
    "software_pipeline_order",
    isLoad.map((l) => (l ? next++ : 0)),
  );
  sch.unroll(step);
}
