import { batchNorm, broadcastAdd, vectorAdd } from "./elementwise.js";
import { conv2d, depthwiseConv2d, pad2d } from "./conv.js";
import { gemmReluAdd } from "./gemm-relu-add.js";
import { reshape, stridedSlice, transpose } from "./layout.js";
import { batchMatmul, matmul } from "./matmul.js";
import { avgPool2d, maxPool2d } from "./pool.js";

export type { OperatorBuild, FloatDType, Size2 } from "./common.js";
export { convOutSize } from "./common.js";
export { vectorAdd, broadcastAdd, broadcastShape, batchNorm } from "./elementwise.js";
export type { BatchNormConfig } from "./elementwise.js";
export { batchMatmul, matmul } from "./matmul.js";
export { conv2d, depthwiseConv2d, pad2d } from "./conv.js";
export type { Conv2dConfig, DepthwiseConv2dConfig, WindowConfig } from "./conv.js";
export { maxPool2d, avgPool2d } from "./pool.js";
export type { Pool2dConfig } from "./pool.js";
export { transpose, reshape, stridedSlice } from "./layout.js";
export { gemmReluAdd } from "./gemm-relu-add.js";
export { REFERENCE_OPERATORS } from "./reference.js";
export type { FloatArray } from "./reference.js";

/** The operator library under short names (`ops.slice` is `stridedSlice`). */
export const ops = {
  vectorAdd,
  broadcastAdd,
  matmul,
  batchMatmul,
  conv2d,
  depthwiseConv2d,
  maxPool2d,
  avgPool2d,
  batchNorm,
  transpose,
  reshape,
  slice: stridedSlice,
  pad2d,
  gemmReluAdd,
} as const;
