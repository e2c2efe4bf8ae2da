/**
 * The components a tuning run can ask for by name ("auto" space, "evolutionary" strategy, "xgb"
 * cost model, "local" builder and runner, "json" database): this file is the one place that maps
 * names to constructors; everything else takes instances.
 */
import type { Target } from "@tessera/codegen";
import type { Schedule } from "@tessera/schedule";
import type { Builder } from "../builder/builder.js";
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
import { defaultCudaSpaceGenerator } from "../space/defaults.js";
import { ScheduleFnSpace } from "../space/schedule-fn.js";
import type { CostModel } from "../cost-model/cost-model.js";
import type { Database } from "../database/database.js";
import { MetaScheduleError } from "../errors.js";
import type { Runner } from "../runner/runner.js";
import type { SearchStrategy } from "../search/search-strategy.js";
import type { SpaceGenerator } from "../space/space-generator.js";

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

export function defaultSpaceFor(target: Target): SpaceGenerator {
  if (target.kind !== "cuda") throw new MetaScheduleError(`no default design space for target ${target.name} (kind ${target.kind}); pass a space`);
  return defaultCudaSpaceGenerator(target);
}

/** A ScheduleFn space with the postprocessors and mutators of the target's default space (as TVM's tune_tir gives it). */
export function scheduleFnSpace(fn: ScheduleFnLike, target: Target): SpaceGenerator {
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

export function makeRunner(name: RunnerName): Runner {
  return name === "local" ? new LocalRunner() : new SimulatedRunner();
}

export function openDatabase(name: DatabaseName, workDir: string): Database {
  return name === "json" ? new JSONDatabase(workDir) : new MemoryDatabase();
}
