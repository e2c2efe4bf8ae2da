export { Analyzer, type ProofStrength, simplify } from "./analyzer.js";
export {
  type IntBound,
  type VarBoundFacts,
  UNBOUNDED_INT_BOUND,
  constIntBoundOf,
  dtypeBound as dtypeIntBound,
} from "./intBound.js";
export { exprKey as exprStructureKey, sameExpr as sameExprStructure } from "./exprKey.js";
export { evalIntExpr } from "./int-eval.js";
export { type ModularSet, EVERYTHING as MODULAR_EVERYTHING, modularSet, modularSetOf, unionModular, intersectModular } from "./modularSet.js";
export { evalIntBinary, floorDivInt, floorModInt, gcdInt, truncDivInt, truncModInt, foldBinaryConstants, foldCastConstant } from "./constFold.js";
export {
  type LinearForm,
  type LinearTerm,
  addForms,
  linearFormBound,
  linearFormOf,
  linearFormToExpr,
  scaleForm,
} from "./linearForm.js";
export { RewriteMemo, type SimplifyFacts, rewriteSimplify } from "./rewriteSimplify.js";
export {
  type IntervalSet,
  type IntervalLow,
  type IntervalHigh,
  type NegativeInfinity,
  type PositiveInfinity,
  NEG_INF,
  POS_INF,
  UNBOUNDED_INTERVAL,
  intervalSet,
  pointInterval,
  isFiniteInterval,
  intervalFromRange,
  rangeOfInterval,
  unionIntervals,
  intersectIntervals,
  evalSet,
} from "./intervalSet.js";
export * from "./iter-map/index.js";
export { foldingBinary, foldingNot } from "./tvm-rewrite/folding.js";
export { DivisionByZeroError } from "./tvm-rewrite/zero-divisor.js";
export { allowUintAsIndex, uintAsIndexAllowed } from "./uint-as-index.js";
export {
  type CommReducerForm,
  type Reduction,
  type ReductionAxis,
  type ReductionParts,
  applyCombiner,
  isReduction,
  reduction,
  sameReduction,
} from "./reduction/form.js";
