/** The sim device: the lowered kernels run in the GPU simulator, on the caller's TypedArrays. */
import type { LoweredModule } from "@tessera/codegen";
import { simulate, type SimulationOptions, type SimulationReport } from "@tessera/simulator";
import { performance } from "node:perf_hooks";
import type { BatchTimer } from "../timer.js";
import { checkHostArguments, type ParamSpec } from "../module-args/arguments.js";
import type { Executor } from "./executor.js";

export class SimExecutor implements Executor {
  readonly device = "sim" as const;
  /** The simulator's report of the last run (races, uninitialised shared reads, per-kernel time). */
  lastReport: SimulationReport | undefined;

  constructor(
    readonly lowered: LoweredModule,
    readonly specs: readonly ParamSpec[],
    readonly simulation: SimulationOptions = {},
  ) {}

  run(args: readonly unknown[]): void {
    const checked = checkHostArguments(this.lowered.name, this.specs, args);
    this.lastReport = simulate(this.lowered, checked, this.simulation);
  }

  /** Wall-clock time of whole simulator runs (simulator time, not GPU time). */
  timer(args: readonly unknown[]): BatchTimer {
    const checked = checkHostArguments(this.lowered.name, this.specs, args);
    const once = (): void => {
      this.lastReport = simulate(this.lowered, checked, this.simulation);
    };
    return {
      warmup: once,
      timeBatch(number: number): number {
        const t0 = performance.now();
        for (let i = 0; i < number; i++) once();
        return performance.now() - t0;
      },
    };
  }

  dispose(): void {}
}
