/** Schedule rules (the GPU design space; the CPU tiling, cross-thread reduction and auto-bind rules add their lines here). */
export * from "./auto-inline.js";
export * from "./parallelize-vectorize-unroll.js";
export * from "./multi-level-tiling.js";
export * from "./multi-level-tiling/annotations.js";
export * from "./multi-level-tiling/tiling.js";
export * from "./multi-level-tiling/access-pattern.js";
export * from "./multi-level-tiling/block-query.js";
