export * from "./block-info.js";
export * from "./thread-bind.js";
