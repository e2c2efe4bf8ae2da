/**
 * Schedule rules (the GPU design space; the CPU tiling, cross-thread reduction and auto-bind rules
 * add their lines here). The tiling machinery they share is in ./multi-level-tiling/ (import it by
 * path: tiling.ts, block-query.ts, access-pattern.ts, annotations.ts).
 */
export * from "./auto-inline.js";
export * from "./parallelize-vectorize-unroll.js";
export * from "./multi-level-tiling.js";
export * from "./multi-level-tiling/tiling.js";
