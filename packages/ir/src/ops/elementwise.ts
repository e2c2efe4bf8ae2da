/** Element-wise operators: vector add, numpy-broadcasting add, inference batch norm. */
import { IRError } from "../errors.js";
import { type PrimExpr, add, div, mul, sub } from "../expr.js";
import { sqrt } from "../intrinsics.js";
import { compute } from "../te/compute.js";
import { createPrimFunc } from "../te/create-prim-func.js";
import { placeholder } from "../te/tensor.js";
import { type FloatDType, type OperatorBuild, checkExtent, checkFloatDType, checkShapeDims } from "./common.js";

/** `C[i] = A[i] + B[i]`. */
export function vectorAdd(n: number, dtype: FloatDType = "float32"): OperatorBuild {
  checkExtent(n, "n", "vectorAdd");
  checkFloatDType(dtype, "vectorAdd");
  const A = placeholder([n], dtype, "A");
  const B = placeholder([n], dtype, "B");
  const C = compute([n], (i) => add(A.at(i), B.at(i)), "C");
  return { func: createPrimFunc([A, B, C], { name: "vector_add" }), inputs: [A, B], output: C };
}

/** The numpy broadcast of two shapes (aligned at the right; each pair equal or one of them 1). */
export function broadcastShape(shapeA: readonly number[], shapeB: readonly number[]): number[] {
  const rank = Math.max(shapeA.length, shapeB.length);
  const out: number[] = [];
  for (let d = 0; d < rank; d++) {
    const a = shapeA[shapeA.length - rank + d] ?? 1;
    const b = shapeB[shapeB.length - rank + d] ?? 1;
    if (a !== b && a !== 1 && b !== 1) {
      throw new IRError(`broadcastAdd: shapes [${shapeA.join(", ")}] and [${shapeB.join(", ")}] cannot be broadcast (dimension ${d}: ${a} vs ${b})`);
    }
    out.push(a === 1 ? b : a);
  }
  return out;
}

/** `C = A + B` with numpy broadcasting. */
export function broadcastAdd(shapeA: readonly number[], shapeB: readonly number[], dtype: FloatDType = "float32"): OperatorBuild {
  checkShapeDims(shapeA, "shapeA", "broadcastAdd");
  checkShapeDims(shapeB, "shapeB", "broadcastAdd");
  checkFloatDType(dtype, "broadcastAdd");
  const outShape = broadcastShape(shapeA, shapeB);
  const A = placeholder(shapeA, dtype, "A");
  const B = placeholder(shapeB, dtype, "B");
  // Index an operand with the trailing output indices, pinning its size-1 dimensions to 0.
  const broadcastIndex = (shape: readonly number[], idx: readonly PrimExpr[]): (PrimExpr | number)[] =>
    shape.map((extent, d) => {
      const outDim = outShape.length - shape.length + d;
      return extent === 1 && outShape[outDim] !== 1 ? 0 : idx[outDim]!;
    });
  const C = compute(outShape, (...idx) => add(A.at(...broadcastIndex(shapeA, idx)), B.at(...broadcastIndex(shapeB, idx))), "C");
  return { func: createPrimFunc([A, B, C], { name: "broadcast_add" }), inputs: [A, B], output: C };
}

export interface BatchNormConfig {
  readonly channels: number;
  readonly height: number;
  readonly width: number;
  /** Added to the variance before the square root (default 1e-5). */
  readonly eps?: number;
  readonly dtype?: FloatDType;
}

/**
 * Inference batch norm on a CHW tensor with per-channel statistics:
 * `Y[c, h, w] = (X[c, h, w] - Mean[c]) / sqrt(Var[c] + eps) * Gamma[c] + Beta[c]`.
 */
export function batchNorm(cfg: BatchNormConfig): OperatorBuild {
  const what = "batchNorm";
  const c = checkExtent(cfg.channels, "channels", what);
  const h = checkExtent(cfg.height, "height", what);
  const w = checkExtent(cfg.width, "width", what);
  const eps = cfg.eps ?? 1e-5;
  if (!(eps >= 0)) throw new IRError(`${what}: eps must be a non-negative number, got ${eps}`);
  const dtype = checkFloatDType(cfg.dtype ?? "float32", what);
  const X = placeholder([c, h, w], dtype, "X");
  const Mean = placeholder([c], dtype, "Mean");
  const Var = placeholder([c], dtype, "Var");
  const Gamma = placeholder([c], dtype, "Gamma");
  const Beta = placeholder([c], dtype, "Beta");
  const Y = compute([c, h, w], (ci, hi, wi) => add(mul(div(sub(X.at(ci, hi, wi), Mean.at(ci)), sqrt(add(Var.at(ci), eps))), Gamma.at(ci)), Beta.at(ci)), "Y");
  return { func: createPrimFunc([X, Mean, Var, Gamma, Beta, Y], { name: "batch_norm" }), inputs: [X, Mean, Var, Gamma, Beta], output: Y };
}
