/** The grading manifest: schema, types and loader. */
export * from "./schema.js";
export { ManifestError, formatFieldPath, loadManifest, parseManifest } from "./load.js";
