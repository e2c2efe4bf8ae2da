export * from "../interfaces/feature-extractor.js";
export * from "./feature-names.js";
export * from "./slog.js";
export * from "./per-store-feature.js";
export * from "./per-store-feature-extractor.js";
export * from "./kernel-summary-feature.js";
export * from "./latency-estimate-of.js";
