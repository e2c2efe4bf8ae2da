export * from "./mutate-unroll.js";
export * from "./mutate-compute-location.js";
export * from "./mutate-thread-binding.js";
export * from "./mutate-parallel.js";
