export type { IterMark, IterSplit, IterSum } from "./types.js";
export { detectIterMap, isAffineBinding, type DetectIterMapOptions, type IterMapResult } from "./detect.js";
export { iterMapSimplify, normalizeIterMapToExpr, iterSplitToExpr } from "./normalize.js";
