/**
 * A program measured in a recorded `pnpm bench:tune` report, rebuilt as today's compiler builds it:
 * its sampling decisions (trace order) forced into the workload's default CUDA design space, the
 * postprocessors applied, the result lowered for the target.
 */
import { type CudaTarget, type LoweredModule, lower } from "@tessera/codegen";
import type { Decision, Trace } from "@tessera/schedule";
import { defaultCudaSpaceGenerator, replayWithPostprocs, tuneContext, workloadOf } from "../src/index.js";
import { benchWorkload } from "./workloads.js";

/** Rebuilds programs of one workload from their recorded decisions. */
export function recordedProgramBuilder(workload: string, target: CudaTarget): (decisions: readonly unknown[], what: string) => LoweredModule {
  const func = benchWorkload(workload).func();
  const ctx = tuneContext(workloadOf(func), target, { seed: 1 });
  const gen = defaultCudaSpaceGenerator(target);
  gen.initialize(ctx);
  const space = gen.generateDesignSpace(ctx)[0]!.trace;
  return (decisions, what) => {
    let trace: Trace = space;
    let next = 0;
    for (const inst of space.instructions) {
      if (inst.kind.name === "EnterPostproc") break;
      if (inst.kind.name.startsWith("Sample")) trace = trace.withDecision(inst, decisions[next++] as Decision);
    }
    if (next !== decisions.length) throw new RangeError(`${what}: ${decisions.length} decisions recorded, the space samples ${next}`);
    const replayed = replayWithPostprocs(ctx, trace, gen.postprocs, { seed: 1 });
    if (!replayed.ok) throw new Error(`${what}: the recorded decisions no longer replay: ${replayed.reason}`);
    return lower(replayed.sch.func, target);
  };
}
