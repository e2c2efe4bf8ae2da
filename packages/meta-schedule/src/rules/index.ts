/**
 * Schedule rules: the GPU design space, the CPU tiling, cross-thread reduction and auto-bind.
 * The tiling machinery they share is in ./multi-level-tiling/ (tiling.ts, block-query.ts,
 * access-pattern.ts, annotations.ts).
 */
export * from "./add-rfactor.js";
export * from "./auto-bind.js";
export * from "./cross-thread-reduction.js";
export * from "./multi-level-tiling-cpu.js";
export * from "./random-compute-location.js";
export * from "./auto-inline.js";
export * from "./parallelize-vectorize-unroll.js";
export * from "./multi-level-tiling.js";
export * from "./multi-level-tiling/tiling.js";
export { needsMultiLevelTiling } from "../schedule-utils/block-info.js";
