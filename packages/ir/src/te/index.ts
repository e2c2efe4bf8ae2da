/**
 * TE-style authoring, after TVM's `tvm.te`. Functions are exported under distinct names
 * (`reduceSum`, `allOf`, …) and also gathered on the `te` object under TVM's spellings
 * (`te.sum`, `te.all`, …), which would clash with core names if exported bare.
 */
import { ifThenElse } from "../intrinsics.js";
import { compute } from "./compute.js";
import { createPrimFunc } from "./create-prim-func.js";
import { maxValue, minValue } from "./limits.js";
import { allOf, anyOf } from "./logic.js";
import { commReducer, reduceAxis, reduceMax, reduceMin, reduceProd, reduceSum } from "./reduce.js";
import { placeholder } from "./tensor.js";

export { Tensor, placeholder, isTensor, tensorOfBuffer } from "./tensor.js";
export type { ComputeOp, Operation, PlaceholderOp } from "./tensor.js";
export { compute } from "./compute.js";
export type { ComputeBody } from "./compute.js";
export {
  reduceAxis,
  isReduceAxis,
  reduceAxisRange,
  commReducer,
  reduceSum,
  reduceProd,
  reduceMax,
  reduceMin,
  isReduceExpr,
} from "./reduce.js";
export type { CommReducer, ReduceExpr, Reducer } from "./reduce.js";
export { allOf, anyOf } from "./logic.js";
export { minValue, maxValue } from "./limits.js";
export { createPrimFunc } from "./create-prim-func.js";
export type { CreatePrimFuncOptions } from "./create-prim-func.js";

/** TVM's `te` namespace, spelled as in Python. */
export const te = {
  placeholder,
  compute,
  reduceAxis,
  commReducer,
  sum: reduceSum,
  prod: reduceProd,
  max: reduceMax,
  min: reduceMin,
  all: allOf,
  any: anyOf,
  ifThenElse,
  minValue,
  maxValue,
  createPrimFunc,
} as const;
