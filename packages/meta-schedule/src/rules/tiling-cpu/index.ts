export * from "./tile-structure.js";
export * from "./tile-loop-nest.js";
export * from "./write-cache.js";
