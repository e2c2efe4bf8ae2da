/**
 * Loop transformations: split, fuse, reorder (each in its own module; importing this one
 * registers all three instruction kinds).
 */
export {
  HasAnnotationOrThreadBindingError,
  LoopNotStartWithZeroError,
  DependentLoopError,
} from "./common.js";
export { NotSingleInferFactorError, NonPositiveFactorError, WrongFactorError, SPLIT } from "./split.js";
export { OuterNotInnerParent, NotOnlyChildError, FUSE } from "./fuse.js";
export { LoopMultiAppearanceError, LoopsNotAChainError, BlockPropertyError, REORDER } from "./reorder.js";
