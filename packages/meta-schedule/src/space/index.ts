export * from "./cpu-defaults.js";
