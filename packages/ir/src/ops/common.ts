/** Shared shape checks and the result type of the TE operator builders. */
import { IRError } from "../errors.js";
import type { PrimFunc } from "../func.js";
import type { Tensor } from "../te/tensor.js";

/** A built operator: the function plus the TE tensors of its parameters. */
export interface OperatorBuild {
  readonly func: PrimFunc;
  /** Input tensors, in parameter order (the output comes after them). */
  readonly inputs: readonly Tensor[];
  readonly output: Tensor;
}

/** Element types the operator library accepts. */
export type FloatDType = "float32" | "float64";

export function checkFloatDType(dtype: string, what: string): FloatDType {
  if (dtype !== "float32" && dtype !== "float64") throw new IRError(`${what}: dtype must be float32 or float64, got ${dtype}`);
  return dtype;
}

export function checkExtent(value: number, label: string, what: string): number {
  if (!(Number.isInteger(value) && value > 0)) throw new IRError(`${what}: ${label} must be a positive integer, got ${value}`);
  return value;
}

export function checkNonNegative(value: number, label: string, what: string): number {
  if (!(Number.isInteger(value) && value >= 0)) throw new IRError(`${what}: ${label} must be a non-negative integer, got ${value}`);
  return value;
}

export function checkShapeDims(shape: readonly number[], label: string, what: string): number[] {
  if (!Array.isArray(shape) || shape.length === 0) throw new IRError(`${what}: ${label} must be a non-empty array of extents`);
  return shape.map((d, i) => checkExtent(d, `${label}[${i}]`, what));
}

/** A size given once for both spatial dimensions, or as `[height, width]`. */
export type Size2 = number | readonly [number, number];

export function pair(x: Size2, label: string, what: string, allowZero = false): [number, number] {
  const [h, w] = typeof x === "number" ? [x, x] : x;
  const check = allowZero ? checkNonNegative : checkExtent;
  return [check(h, `${label} (height)`, what), check(w, `${label} (width)`, what)];
}

/** Output extent of a sliding window: `(n - k + 2p) / s + 1`, as in the d2l book. */
export function convOutSize(n: number, k: number, p: number, s: number): number {
  return Math.floor((n - k + 2 * p) / s) + 1;
}

export function product(xs: readonly number[]): number {
  return xs.reduce((a, b) => a * b, 1);
}

/** Row-major strides of a shape. */
export function rowMajorStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length).fill(1);
  for (let d = shape.length - 2; d >= 0; d--) strides[d] = strides[d + 1]! * shape[d + 1]!;
  return strides;
}
