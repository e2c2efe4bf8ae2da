export * from "./rejection-tally.js";
export * from "./replay-trace.js";
export * from "./evolutionary-search.js";
export * from "./replay-func.js";
export * from "./recorded-first.js";
export * from "./crossover.js";
