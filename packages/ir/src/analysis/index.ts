export {
  type BlockAccessRegions,
  type MissingRegions,
  inferAccessRegions,
  completeBlockRegions,
  withInferredRegions,
} from "./accessRegion.js";
export { WellFormedError, verifyWellFormed } from "./wellFormed.js";
