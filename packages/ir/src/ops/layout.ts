/** Data-movement operators: transpose, reshape, strided slice. */
import { IRError } from "../errors.js";
import { type PrimExpr, add, floordiv, floormod, mul } from "../expr.js";
import { compute } from "../te/compute.js";
import { createPrimFunc } from "../te/create-prim-func.js";
import { placeholder } from "../te/tensor.js";
import { type FloatDType, type OperatorBuild, checkFloatDType, checkShapeDims, product, rowMajorStrides } from "./common.js";

/** `Y[i_0, …] = X[j]` with `j[perm[d]] = i[d]`, i.e. `Y.shape[d] = X.shape[perm[d]]` (numpy's transpose). */
export function transpose(shape: readonly number[], perm: readonly number[], dtype: FloatDType = "float32"): OperatorBuild {
  const what = "transpose";
  checkShapeDims(shape, "shape", what);
  checkFloatDType(dtype, what);
  const sorted = [...perm].sort((a, b) => a - b);
  if (perm.length !== shape.length || sorted.some((p, i) => p !== i)) {
    throw new IRError(`${what}: [${perm.join(", ")}] is not a permutation of the ${shape.length} axes`);
  }
  const X = placeholder(shape, dtype, "X");
  const outShape = perm.map((p) => shape[p]!);
  const Y = compute(
    outShape,
    (...idx) => {
      const src = new Array<PrimExpr>(shape.length);
      perm.forEach((p, d) => (src[p] = idx[d]!));
      return X.at(...src);
    },
    "Y",
  );
  return { func: createPrimFunc([X, Y], { name: "transpose" }), inputs: [X], output: Y };
}

/** Same elements in row-major order, new shape. */
export function reshape(shapeFrom: readonly number[], shapeTo: readonly number[], dtype: FloatDType = "float32"): OperatorBuild {
  const what = "reshape";
  checkShapeDims(shapeFrom, "shapeFrom", what);
  checkShapeDims(shapeTo, "shapeTo", what);
  checkFloatDType(dtype, what);
  if (product(shapeFrom) !== product(shapeTo)) {
    throw new IRError(
      `${what}: cannot reshape [${shapeFrom.join(", ")}] (${product(shapeFrom)} elements) to [${shapeTo.join(", ")}] (${product(shapeTo)} elements)`,
    );
  }
  const X = placeholder(shapeFrom, dtype, "X");
  const toStrides = rowMajorStrides(shapeTo);
  const fromStrides = rowMajorStrides(shapeFrom);
  const Y = compute(
    shapeTo,
    (...idx) => {
      const flat = idx.reduce<PrimExpr | number>((acc, i, d) => (acc === 0 ? mul(i, toStrides[d]!) : add(acc, mul(i, toStrides[d]!))), 0);
      const src = shapeFrom.map((extent, d) => (d === 0 ? floordiv(flat, fromStrides[d]!) : floormod(floordiv(flat, fromStrides[d]!), extent)));
      return X.at(...src);
    },
    "Y",
  );
  return { func: createPrimFunc([X, Y], { name: "reshape" }), inputs: [X], output: Y };
}

/**
 * `Y[i_0, …] = X[begin_0 + i_0·stride_0, …]` for `begin ≤ index < end` (numpy's `X[b:e:s]` with
 * positive steps); each dimension must select at least one element.
 */
export function stridedSlice(
  shape: readonly number[],
  begin: readonly number[],
  end: readonly number[],
  strides?: readonly number[],
  dtype: FloatDType = "float32",
): OperatorBuild {
  const what = "slice";
  checkShapeDims(shape, "shape", what);
  checkFloatDType(dtype, what);
  const steps = strides ?? shape.map(() => 1);
  if (begin.length !== shape.length || end.length !== shape.length || steps.length !== shape.length) {
    throw new IRError(`${what}: begin, end and strides need one entry per dimension (${shape.length})`);
  }
  const outShape = shape.map((extent, d) => {
    const b = begin[d]!;
    const e = end[d]!;
    const s = steps[d]!;
    if (!(Number.isInteger(s) && s > 0)) throw new IRError(`${what}: stride ${s} of dimension ${d} must be a positive integer`);
    if (!(Number.isInteger(b) && Number.isInteger(e) && b >= 0 && e <= extent && b < e)) {
      throw new IRError(`${what}: range [${b}, ${e}) of dimension ${d} is out of range for extent ${extent} (need 0 ≤ begin < end ≤ ${extent})`);
    }
    return Math.ceil((e - b) / s);
  });
  const X = placeholder(shape, dtype, "X");
  const Y = compute(outShape, (...idx) => X.at(...idx.map((i, d) => add(mul(i, steps[d]!), begin[d]!))), "Y");
  return { func: createPrimFunc([X, Y], { name: "slice" }), inputs: [X], output: Y };
}
