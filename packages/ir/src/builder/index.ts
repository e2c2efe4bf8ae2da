export { buildPrimFunc, PrimFuncBuilder } from "./prim-func-builder.js";
export type { AxisDomain, BlockAxes, BuildOptions, LoopOptions } from "./prim-func-builder.js";
export { regionOf, completeAccessRegions } from "./regions.js";
export type { RegionDim, DeclaredAccess } from "./regions.js";
export { withRootBlock, containsBlock, ROOT_BLOCK_NAME } from "./root-block.js";
export { parameterList } from "./param-names.js";
export type { ParameterList } from "./param-names.js";
