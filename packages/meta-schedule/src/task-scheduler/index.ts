export * from "./flops.js";
export * from "./task-record.js";
export * from "./measure-callback.js";
export * from "./trial-log.js";
export * from "./task-scheduler.js";
export * from "./round-robin.js";
export * from "./gradient-based.js";
