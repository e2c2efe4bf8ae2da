/**
 * Tuning options for tests that check what a tuning run finds, not how its search is spread: no
 * replay worker thread. Each tuneTIR call would otherwise start one (cores − 1 of them), cold,
 * which cost about 4 CPU s per call on two cores, more than these small searches themselves
 * (docs/benchmarks/ci-time.md). A seed picks the same candidates with any number of workers:
 * search/parallel-search.test.ts checks that.
 */
export const NO_SEARCH_WORKERS = { searchWorkers: 0 } as const;
