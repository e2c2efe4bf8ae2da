export * from "./record-order.js";
export * from "./memory-database.js";
export * from "./record-json.js";
export * from "./json-database.js";
export * from "./query.js";
