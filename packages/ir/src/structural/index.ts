export { structuralEqual, structuralDiff, assertStructuralEqual, type StructuralDifference } from "./diff.js";
export { type StructuralHashes, structuralHash, structuralHashes, writeStructuralTokens } from "./hash.js";
export type { StructuralOptions } from "./options.js";
export type { StructuralNode } from "./node-kinds.js";
