/**
 * TE tensors and the operations that produce them. A tensor owns the buffer it will become in
 * the generated PrimFunc, so indexing a tensor (`A.at(i, j)`) is already a `BufferLoad` and the
 * compute bodies need no rewriting; a registry maps those buffers back to their tensors.
 */
import { type Buffer, declBuffer } from "../buffer.js";
import { type DType, dtypeInfo } from "../dtype.js";
import { IRError } from "../errors.js";
import { type BufferLoad, type ExprLike, type PrimExpr, bufferLoad } from "../expr.js";
import type { Annotations, IterVar } from "../stmt.js";
import type { ReduceExpr } from "./reduce.js";

export interface PlaceholderOp {
  readonly kind: "PlaceholderOp";
  readonly name: string;
}

export interface ComputeOp {
  readonly kind: "ComputeOp";
  readonly name: string;
  /** The data-parallel axes, one per output dimension. */
  readonly axis: readonly IterVar[];
  /** A plain expression, or a reduction at the top level. */
  readonly body: PrimExpr | ReduceExpr;
  readonly attrs: Annotations;
  /** The tensors the body reads, in order of first use. */
  readonly inputs: readonly Tensor[];
}

export type Operation = PlaceholderOp | ComputeOp;

const tensorsByBuffer = new WeakMap<Buffer, Tensor>();

export class Tensor {
  readonly kind = "Tensor";
  /** The buffer this tensor becomes: a parameter or an intermediate allocation. */
  readonly buffer: Buffer;

  constructor(
    readonly name: string,
    shape: readonly ExprLike[],
    readonly dtype: DType,
    readonly op: Operation,
  ) {
    dtypeInfo(dtype);
    this.buffer = declBuffer(name, shape, dtype);
    tensorsByBuffer.set(this.buffer, this);
  }

  get shape(): readonly PrimExpr[] {
    return this.buffer.shape;
  }

  get ndim(): number {
    return this.buffer.shape.length;
  }

  /** `A[i, j]`: an element of the tensor, usable in compute bodies. */
  at(...indices: ExprLike[]): BufferLoad {
    if (indices.length !== this.ndim) {
      throw new IRError(
        `tensor ${this.name} has ${this.ndim} dimension${this.ndim === 1 ? "" : "s"} but was indexed with ${indices.length} ind${indices.length === 1 ? "ex" : "ices"}`,
      );
    }
    return bufferLoad(this.buffer, indices);
  }

  toString(): string {
    return `Tensor(${this.name})`;
  }
}

export function isTensor(x: unknown): x is Tensor {
  return x instanceof Tensor;
}

/** The tensor whose buffer is `buffer`, if it was created by TE. */
export function tensorOfBuffer(buffer: Buffer): Tensor | undefined {
  return tensorsByBuffer.get(buffer);
}

/** `te.placeholder(shape, dtype, name)`: an input tensor. */
export function placeholder(shape: readonly ExprLike[], dtype: DType = "float32", name = "placeholder"): Tensor {
  checkShape(shape, `placeholder ${name}`);
  return new Tensor(name, shape, dtype, { kind: "PlaceholderOp", name });
}

/** Rejects non-integer and non-positive constant extents with a message naming the tensor. */
export function checkShape(shape: readonly ExprLike[], what: string): void {
  if (!Array.isArray(shape)) throw new IRError(`${what}: the shape must be an array of extents`);
  for (const [i, s] of shape.entries()) {
    if (typeof s === "number" && !(Number.isInteger(s) && s > 0)) {
      throw new IRError(`${what}: dimension ${i} has extent ${s}; extents must be positive integers`);
    }
    if (typeof s === "boolean") throw new IRError(`${what}: dimension ${i} is a boolean, not an extent`);
  }
}
