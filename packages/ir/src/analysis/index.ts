export {
  type BlockAccessRegions,
  type MissingRegions,
  inferAccessRegions,
  completeBlockRegions,
  withInferredRegions,
} from "./accessRegion.js";
export { WellFormedError, verifyWellFormed } from "./wellFormed.js";
export {
  canRelaxStorageUnderThread,
  isBlockIdxTag,
  isGlobalScope,
  isLaunchTag,
  isThreadIdxTag,
  isVirtualThreadTag,
} from "./thread-scope.js";
