/**
 * The components a tuning run can ask for by name ("auto" space, "evolutionary" strategy, "xgb"
 * cost model, "local" builder and runner, "json" database): this file is the one place that maps
 * names to constructors; everything else takes instances.
 */
import type { Schedule } from "@tessera/schedule";
import type { Builder } from "../interfaces/builder.js";
import { LocalBuilder } from "../builder/local-builder.js";
import { AnalyticModel } from "../cost-model/analytic-model.js";
import { ForestModel } from "../cost-model/forest-model.js";
import { HybridModel } from "../cost-model/hybrid-model.js";
import { RandomModel } from "../cost-model/random-model.js";
import { JSONDatabase } from "../database/json-database.js";
import { MemoryDatabase } from "../database/memory-database.js";
import { LocalRunner } from "../runner/local-runner.js";
import { SimulatedRunner } from "../runner/simulated-runner.js";
import { EvolutionarySearch } from "../search/evolutionary-search.js";
import { ReplayTraceStrategy } from "../search/replay-trace.js";
import { defaultCpuSpaceGenerator } from "../space/cpu-defaults.js";
import { defaultCudaSpaceGenerator } from "../space/defaults.js";
import { hostReferenceChecker } from "../runner/host-reference.js";
import { firstResultChecker } from "../runner/checker.js";
import type { TuneTarget } from "../tune-context.js";
import { ScheduleFnSpace } from "../space/schedule-fn.js";
import type { CostModel } from "../interfaces/cost-model.js";
import type { Database } from "../interfaces/database.js";
import { MetaScheduleError } from "../errors.js";
import type { Runner } from "../interfaces/runner.js";
import type { SearchStrategy } from "../interfaces/search-strategy.js";
import type { SpaceGenerator } from "../interfaces/space-generator.js";

/** A schedule function (TVM's ScheduleFn): modifies `sch`, or returns the schedule(s) of the space. */
export type ScheduleFnLike = (sch: Schedule) => void | Schedule | readonly Schedule[];

export const STRATEGY_NAMES = ["evolutionary", "replay-trace"] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
export const COST_MODEL_NAMES = ["hybrid", "xgb", "analytic", "random", "none"] as const;
export type CostModelName = (typeof COST_MODEL_NAMES)[number];
export const RUNNER_NAMES = ["local", "simulated"] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];
export const DATABASE_NAMES = ["json", "memory"] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

export function defaultSpaceFor(target: TuneTarget): SpaceGenerator {
  if (target.kind === "c") return defaultCpuSpaceGenerator();
  if (target.kind === "cuda") return defaultCudaSpaceGenerator(target);
  const unknown = target as { name?: unknown; kind?: unknown };
  throw new MetaScheduleError(`no default design space for target ${String(unknown.name)} (kind ${String(unknown.kind)}); pass a space`);
}

/** A ScheduleFn space with the postprocessors and mutators of the target's default space (as TVM's tune_tir gives it). */
export function scheduleFnSpace(fn: ScheduleFnLike, target: TuneTarget): SpaceGenerator {
  const defaults = defaultSpaceFor(target);
  return new ScheduleFnSpace(fn, { postprocs: defaults.postprocs, mutators: defaults.mutators });
}

export function makeStrategy(name: StrategyName): SearchStrategy {
  return name === "evolutionary" ? new EvolutionarySearch() : new ReplayTraceStrategy();
}

export function makeCostModel(name: CostModelName, seed?: number): CostModel | undefined {
  if (name === "none") return undefined;
  switch (name) {
    case "hybrid":
      return new HybridModel();
    case "xgb":
      return new ForestModel();
    case "analytic":
      return new AnalyticModel();
    case "random":
      return new RandomModel(seed === undefined ? {} : { seed });
  }
}

export function makeBuilder(): Builder {
  return new LocalBuilder();
}

/**
 * The runner of a name for a target. For a CPU target, "local" measures on this machine (the
 * runner's child loads each compiled library) and checks every candidate against the unscheduled
 * workload compiled by the C target (fp32 sums in another order: rtol = atol = 1e-3).
 */
/**
 * The runner of a name. A local runner checks every candidate's outputs, so that a wrong kernel is a
 * failed trial and never the fastest one: against a C reference on the host for a CPU target, and
 * against the first candidate measured on the GPU (a reference on the CPU would take minutes at
 * GPU sizes), as `bench:tune` has done on the GPU since its first runs.
 */
export function makeRunner(name: RunnerName, target?: TuneTarget): Runner {
  if (name === "simulated") return new SimulatedRunner();
  if (target?.kind === "c") return new LocalRunner({ checker: hostReferenceChecker({ rtol: 1e-3, atol: 1e-3 }) });
  return new LocalRunner({ checker: firstResultChecker(), batch: true });
}

/** The default cost model of a target: TVM's XGBoost-like forest for a CPU (the analytic prior models a GPU), "hybrid" for a GPU. */
export function defaultCostModelName(target: TuneTarget): CostModelName {
  return target.kind === "c" ? "xgb" : "hybrid";
}

export function openDatabase(name: DatabaseName, workDir: string): Database {
  return name === "json" ? new JSONDatabase(workDir) : new MemoryDatabase();
}
