import { EvolutionarySearch } from "../../src/index.js";

/**
 * Tuning options for tests that check what a tuning run finds, not how its search is spread: no
 * replay worker thread. A tuneTIR call starts its workers (cores − 1, cold, about 4 CPU s each on
 * two cores: docs/benchmarks/ci-time.md) once its search has replayed for 4 CPU s in its own
 * thread, so a run of a few trials starts none without this (cpu-tuning.test.ts's 6 trials
 * replay for about 3 CPU s); it stays for the runs not measured against that threshold. A seed
 * picks the same candidates with any number of workers: search/parallel-search.test.ts checks that.
 */
export const NO_SEARCH_WORKERS = { searchWorkers: 0 } as const;

/**
 * The smallest evolutionary search that still hands out a few measured trials: a population of 16
 * rather than 64, no climbs on the cost model. For tests of what a tuning run's records are
 * (compiled, applied, computing what the executor computes), not of how far its search reaches
 * (search/search-quality.test.ts and the climbs' own tests check that).
 */
export const SMALL_SEARCH = { strategy: () => new EvolutionarySearch({ populationSize: 16, climbStarts: 0 }) } as const;
