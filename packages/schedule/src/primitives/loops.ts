/**
 * Loop transformations: split, fuse, reorder (each in its own module; importing this one
 * registers all three instruction kinds).
 */
export {
  HasAnnotationOrThreadBindingError,
  LoopNotStartWithZeroError,
  DependentLoopError,
} from "./loops-common.js";
export { NotSingleInferFactorError, NonPositiveFactorError, WrongFactorError, SPLIT } from "./loops-split.js";
export { OuterNotInnerParent, NotOnlyChildError, FUSE } from "./loops-fuse.js";
export { LoopMultiAppearanceError, LoopsNotAChainError, BlockPropertyError, REORDER } from "./loops-reorder.js";
