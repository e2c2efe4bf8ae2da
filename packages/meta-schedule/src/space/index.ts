export * from "./cpu-defaults.js";
export * from "./post-order-apply.js";
export * from "./defaults.js";
