export * from "./provided.js";
export * from "./options.js";
export * from "../database/apply-record.js";
export * from "./log-files.js";
