export * from "./table-printer.js";
export * from "./summary-table.js";
export * from "./progress.js";
export * from "./tuning-curve.js";
export * from "./tuning-history.js";
