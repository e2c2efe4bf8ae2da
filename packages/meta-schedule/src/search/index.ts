export * from "./rejection-tally.js";
export * from "./weighted-sampler.js";
export * from "./candidate-replayer.js";
export * from "./best-candidates.js";
export * from "./search-run.js";
export * from "./replay-trace.js";
export * from "./evolutionary-search.js";
