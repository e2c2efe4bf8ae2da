export * from "./add-rfactor.js";
export * from "./auto-bind.js";
export * from "./cross-thread-reduction.js";
export * from "./multi-level-tiling-cpu.js";
export * from "./random-compute-location.js";
