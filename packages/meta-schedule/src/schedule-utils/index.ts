export * from "./block-info.js";
export * from "./thread-bind.js";
export * from "./options.js";
