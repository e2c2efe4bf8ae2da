/**
 * The components that other modules of this package provide, looked up by name when a tuning run
 * asks for them by name ("auto" space, "evolutionary" strategy, "json" database, …). This file is
 * the one place that knows their export names and constructors; everything else takes instances.
 *
 * Expected exports of the package index (the contract with space/, search/, builder/, runner/,
 * database/, cost-model/):
 *   defaultSpaceFor or defaultCudaSpaceGenerator   (target) => SpaceGenerator   (space/defaults.ts)
 *                      ScheduleFnSpace      new ScheduleFnSpace(fn, { postprocs, mutators })
 *                      EvolutionarySearch   new EvolutionarySearch()
 *                      ReplayTraceStrategy  new ReplayTraceStrategy()
 *                      ForestModel          new ForestModel()   (TVM's XGBModel semantics: "xgb")
 *                      RandomModel          new RandomModel({ seed })
 *                      LocalBuilder         new LocalBuilder()
 *                      LocalRunner          new LocalRunner()
 *                      SimulatedRunner      new SimulatedRunner()
 *                      JSONDatabase         new JSONDatabase(workDir)
 *                      MemoryDatabase       new MemoryDatabase()
 * The lookup is by name at run time so that this module compiles before (and without) those
 * modules; a missing one is a clear MetaScheduleError, never a TypeError.
 */
import type { Target } from "@tessera/codegen";
import type { Schedule } from "@tessera/schedule";
import type { Builder } from "../builder/builder.js";
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
export const COST_MODEL_NAMES = ["xgb", "random", "none"] as const;
export type CostModelName = (typeof COST_MODEL_NAMES)[number];
export const RUNNER_NAMES = ["local", "simulated"] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];
export const DATABASE_NAMES = ["json", "memory"] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

/**
 * The first of `names` that the package exports, or a MetaScheduleError saying that `what` is
 * missing. The package's own index is imported with a literal specifier so that bundlers (the GPU
 * bundle) include it; the index is already loaded by then, so this costs nothing.
 */
export async function lookupExport(names: string | readonly string[], what: string): Promise<unknown> {
  const wanted = typeof names === "string" ? [names] : names;
  const mod = (await import("../index.js")) as unknown as Record<string, unknown>;
  for (const name of wanted) if (mod[name] !== undefined) return mod[name];
  throw new MetaScheduleError(`${what} is not available: @tessera/meta-schedule exports no ${wanted.join(" or ")}`);
}

async function construct<T>(name: string, what: string, ...args: unknown[]): Promise<T> {
  const ctor = await lookupExport(name, what);
  if (typeof ctor !== "function") throw new MetaScheduleError(`${what} is not available: ${name} is not a class`);
  return new (ctor as new (...a: unknown[]) => T)(...args);
}

/** The default design space of the target (its post-order-apply space with the default rules, postprocessors and mutators). */
export async function defaultSpaceOf(target: Target): Promise<SpaceGenerator> {
  const make = (await lookupExport(["defaultSpaceFor", "defaultCudaSpaceGenerator"], `the default design space for ${target.name}`)) as (
    t: Target,
  ) => SpaceGenerator;
  return make(target);
}

/** A ScheduleFn space with the postprocessors and mutators of the target's default space (as TVM's tune_tir gives it). */
export async function scheduleFnSpace(fn: ScheduleFnLike, target: Target): Promise<SpaceGenerator> {
  const defaults = await defaultSpaceOf(target);
  return construct<SpaceGenerator>("ScheduleFnSpace", "the ScheduleFn space", fn, { postprocs: defaults.postprocs, mutators: defaults.mutators });
}

export function makeStrategy(name: StrategyName): Promise<SearchStrategy> {
  return name === "evolutionary"
    ? construct<SearchStrategy>("EvolutionarySearch", "the evolutionary search strategy")
    : construct<SearchStrategy>("ReplayTraceStrategy", "the replay-trace search strategy");
}

export async function makeCostModel(name: CostModelName, seed?: number): Promise<CostModel | undefined> {
  if (name === "none") return undefined;
  return name === "xgb"
    ? construct<CostModel>("ForestModel", "the XGBoost-style cost model")
    : construct<CostModel>("RandomModel", "the random cost model", seed === undefined ? {} : { seed });
}

export function makeBuilder(): Promise<Builder> {
  return construct<Builder>("LocalBuilder", "the local builder");
}

export function makeRunner(name: RunnerName): Promise<Runner> {
  return name === "local" ? construct<Runner>("LocalRunner", "the local GPU runner") : construct<Runner>("SimulatedRunner", "the simulated runner");
}

export function openDatabase(name: DatabaseName, workDir: string): Promise<Database> {
  return name === "json" ? construct<Database>("JSONDatabase", "the JSON database", workDir) : construct<Database>("MemoryDatabase", "the memory database");
}
