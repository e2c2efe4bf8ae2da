/**
 * The components that other modules of this package provide, looked up by name when a tuning run
 * asks for them by name ("auto" space, "evolutionary" strategy, "json" database, …). This file is
 * the one place that knows their export names and constructors; everything else takes instances.
 *
 * Expected (the contract with space/, search/, builder/, runner/, database/, cost-model/):
 *   space/defaults.ts   defaultSpaceFor(target: Target): SpaceGenerator
 *   index.ts            ScheduleFn           new ScheduleFn(fn: (sch: Schedule) => void | Schedule | Schedule[])
 *                       EvolutionarySearch   new EvolutionarySearch()
 *                       ReplayTrace          new ReplayTrace()
 *                       XGBModel, RandomModel   new XGBModel(), new RandomModel()
 *                       LocalBuilder         new LocalBuilder()
 *                       LocalRunner, SimulatedRunner   new LocalRunner(), new SimulatedRunner()
 *                       JSONDatabase         new JSONDatabase(workDir: string)
 *                       MemoryDatabase       new MemoryDatabase()
 * The lookup is dynamic so that this module compiles before (and without) those modules; a
 * missing one is a clear MetaScheduleError, never a TypeError.
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
export type ScheduleFnLike = (sch: Schedule) => void | Schedule | Schedule[];

export const STRATEGY_NAMES = ["evolutionary", "replay-trace"] as const;
export type StrategyName = (typeof STRATEGY_NAMES)[number];
export const COST_MODEL_NAMES = ["xgb", "random", "none"] as const;
export type CostModelName = (typeof COST_MODEL_NAMES)[number];
export const RUNNER_NAMES = ["local", "simulated"] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];
export const DATABASE_NAMES = ["json", "memory"] as const;
export type DatabaseName = (typeof DATABASE_NAMES)[number];

/** The export `name` of the module `specifier` (relative to this file), or a MetaScheduleError saying `what` is missing. */
export async function lookupExport(specifier: string, name: string, what: string): Promise<unknown> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(/* @vite-ignore */ specifier)) as Record<string, unknown>;
  } catch (err) {
    throw new MetaScheduleError(`${what} is not available: cannot load ${specifier} (${err instanceof Error ? err.message : String(err)})`);
  }
  const value = mod[name];
  if (value === undefined) throw new MetaScheduleError(`${what} is not available: ${specifier} exports no ${name}`);
  return value;
}

type Constructor<T> = new (...args: never[]) => T;

async function construct<T>(name: string, what: string, ...args: unknown[]): Promise<T> {
  const ctor = (await lookupExport("../index.js", name, what)) as Constructor<T>;
  if (typeof ctor !== "function") throw new MetaScheduleError(`${what} is not available: ${name} is not a class`);
  return new (ctor as unknown as new (...a: unknown[]) => T)(...args);
}

export async function defaultSpaceFor(target: Target): Promise<SpaceGenerator> {
  const make = (await lookupExport("../space/defaults.js", "defaultSpaceFor", `the default design space for ${target.name}`)) as (t: Target) => SpaceGenerator;
  return make(target);
}

export function scheduleFnSpace(fn: ScheduleFnLike): Promise<SpaceGenerator> {
  return construct<SpaceGenerator>("ScheduleFn", "the ScheduleFn space", fn);
}

export function makeStrategy(name: StrategyName): Promise<SearchStrategy> {
  return name === "evolutionary"
    ? construct<SearchStrategy>("EvolutionarySearch", "the evolutionary search strategy")
    : construct<SearchStrategy>("ReplayTrace", "the replay-trace search strategy");
}

export async function makeCostModel(name: CostModelName): Promise<CostModel | undefined> {
  if (name === "none") return undefined;
  return name === "xgb" ? construct<CostModel>("XGBModel", "the XGBoost-style cost model") : construct<CostModel>("RandomModel", "the random cost model");
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
