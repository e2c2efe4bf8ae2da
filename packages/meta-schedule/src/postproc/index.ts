export * from "./disallow-dynamic-loop.js";
export * from "./rewrite-unbound-block.js";
