/** Device arrays: plain cuMemAlloc allocations (never managed memory) with a shape and dtype. */
import { requireCuda } from "./device.js";
import {
  allocTypedArray,
  bfloat16Bits,
  dtypeBytes,
  dtypeOfTypedArray,
  float16Bits,
  float32Bits,
  decodeHalfArray,
  encodeHalfArray,
  isHalfDType,
  typedArrayMatches,
  type HalfDType,
  type AnyTypedArray,
  type DType,
  type TypedArrayFor,
} from "./dtype.js";
import { native } from "./errors.js";
import type { NativeDeviceBuffer } from "./native.js";

export type Shape = readonly number[];

function checkShape(shape: Shape): number {
  let size = 1;
  for (const d of shape) {
    if (!Number.isInteger(d) || d < 0) throw new RangeError(`invalid shape [${shape.join(", ")}]`);
    size *= d;
  }
  return size;
}

/** A dense, row-major array in device memory. Free it with `dispose()` (or `using`); a finalizer frees it otherwise. */
export class NDArray<D extends DType = DType> {
  readonly shape: readonly number[];
  readonly dtype: D;
  readonly device: number;
  /** Number of elements. */
  readonly size: number;
  readonly byteLength: number;
  #buffer: NativeDeviceBuffer | undefined;

  private constructor(buffer: NativeDeviceBuffer, shape: Shape, dtype: D, device: number) {
    this.#buffer = buffer;
    this.shape = Object.freeze([...shape]);
    this.dtype = dtype;
    this.device = device;
    this.size = checkShape(shape);
    this.byteLength = this.size * dtypeBytes(dtype);
  }

  /** Allocates an uninitialised array. */
  static empty<D extends DType>(shape: Shape, dtype: D, device = 0): NDArray<D> {
    const addon = requireCuda("NDArray.empty");
    const size = checkShape(shape);
    const buf = native(() => new addon.DeviceBuffer(device, size * dtypeBytes(dtype)));
    return new NDArray(buf, shape, dtype, device);
  }

  /** Allocates an array filled with `value`. */
  static full<D extends DType>(shape: Shape, dtype: D, value: number | bigint, device = 0): NDArray<D> {
    requireCuda("NDArray.full");
    const a = NDArray.empty(shape, dtype, device);
    a.fill(value);
    return a;
  }

  /** Copies a host TypedArray to a new device array (shape defaults to 1-D). */
  static from<D extends DType>(data: AnyTypedArray, options: { shape?: Shape; dtype?: D; device?: number } = {}): NDArray<D> {
    requireCuda("NDArray.from");
    const dtype = (options.dtype ?? dtypeOfTypedArray(data)) as D;
    const a = NDArray.empty(options.shape ?? [data.length], dtype, options.device ?? 0);
    try {
      a.copyFrom(data);
    } catch (e) {
      a.dispose();
      throw e;
    }
    return a;
  }

  /**
   * Copies numbers to a new float16 or bfloat16 device array, rounding each to the dtype (to
   * nearest, ties to even, from the exact value), as the executor stores them.
   */
  static fromFloats<D extends HalfDType>(
    values: Float32Array | Float64Array | readonly number[],
    options: { dtype: D; shape?: Shape; device?: number },
  ): NDArray<D> {
    if (!isHalfDType(options.dtype)) throw new TypeError(`NDArray.fromFloats: dtype must be float16 or bfloat16, got ${String(options.dtype)}`);
    return NDArray.from(encodeHalfArray(options.dtype, values), options);
  }

  /** Device → host copy as a Float32Array: 16-bit floats decoded from their bits, float32 as is. */
  toFloat32Array(): Float32Array {
    const dtype: DType = this.dtype;
    if (isHalfDType(dtype)) return decodeHalfArray(dtype, this.toTypedArray() as Uint16Array);
    if (dtype === "float32") return this.toTypedArray() as Float32Array;
    throw new TypeError(`NDArray.toFloat32Array: a ${dtype} array is not a float16, bfloat16 or float32 array`);
  }

  get disposed(): boolean {
    return this.#buffer === undefined;
  }

  #live(call: string): NativeDeviceBuffer {
    requireCuda(call);
    if (this.#buffer === undefined) throw new Error(`${call}: NDArray was disposed`);
    return this.#buffer;
  }

  /** The device address (CUdeviceptr), as a kernel parameter would carry it. */
  get ptr(): bigint {
    return this.#live("NDArray.ptr").ptr;
  }

  /** Host → device copy of the whole array. */
  copyFrom(src: AnyTypedArray): this {
    const buf = this.#live("NDArray.copyFrom");
    if (!typedArrayMatches(this.dtype, src)) throw new TypeError(`NDArray.copyFrom: a ${src.constructor.name} cannot hold ${this.dtype}`);
    if (src.length !== this.size) throw new RangeError(`NDArray.copyFrom: ${src.length} elements given, array has ${this.size}`);
    native(() => buf.copyFromHost(src, 0));
    return this;
  }

  /** Device → host copy into `dst` (waits for earlier work; reports its errors). */
  copyTo(dst: AnyTypedArray): AnyTypedArray {
    const buf = this.#live("NDArray.copyTo");
    if (!typedArrayMatches(this.dtype, dst)) throw new TypeError(`NDArray.copyTo: a ${dst.constructor.name} cannot hold ${this.dtype}`);
    if (dst.length !== this.size) throw new RangeError(`NDArray.copyTo: destination has ${dst.length} elements, array has ${this.size}`);
    native(() => buf.copyToHost(dst, 0));
    return dst;
  }

  /** Device → host copy into a new TypedArray. */
  toTypedArray(): TypedArrayFor<D> {
    this.#live("NDArray.toTypedArray");
    const out = allocTypedArray(this.dtype, this.size);
    this.copyTo(out);
    return out;
  }

  /** Device → device copy from another array of the same byte length. */
  copyFromArray(src: NDArray): this {
    const buf = this.#live("NDArray.copyFromArray");
    if (src.byteLength !== this.byteLength) throw new RangeError("NDArray.copyFromArray: byte lengths differ");
    const other = src.#live("NDArray.copyFromArray");
    native(() => buf.copyFromDevice(other, this.byteLength));
    return this;
  }

  /** Sets every element to `value` (NaN allowed: handy for poisoning outputs). */
  fill(value: number | bigint): this {
    const buf = this.#live("NDArray.fill");
    const width = dtypeBytes(this.dtype);
    if (width === 8) {
      const host = allocTypedArray(this.dtype, this.size);
      if (host instanceof BigInt64Array || host instanceof BigUint64Array) host.fill(BigInt(value));
      else (host as Float64Array).fill(Number(value));
      native(() => buf.copyFromHost(host, 0));
      return this;
    }
    const bits = scalarBits(this.dtype, value);
    native(() => buf.memset(bits, width as 1 | 2 | 4, this.size, 0));
    return this;
  }

  /** Frees the device memory now. Idempotent. */
  dispose(): void {
    const buf = this.#buffer;
    if (buf === undefined) return;
    this.#buffer = undefined;
    native(() => buf.free());
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  toString(): string {
    return `NDArray(shape=[${this.shape.join(", ")}], dtype=${this.dtype}, device=cuda:${this.device}${this.disposed ? ", disposed" : ""})`;
  }
}

/** Bit pattern of a scalar of a 1-, 2- or 4-byte dtype, as memset writes it. */
export function scalarBits(dtype: DType, value: number | bigint): number {
  const v = Number(value);
  switch (dtype) {
    case "float32":
      return float32Bits(v);
    case "float16":
      return float16Bits(v);
    case "bfloat16":
      return bfloat16Bits(v);
    case "bool":
      return v !== 0 ? 1 : 0;
    case "int8":
    case "uint8":
      return v & 0xff;
    case "int16":
    case "uint16":
      return v & 0xffff;
    case "int32":
    case "uint32":
      return v >>> 0;
    default:
      throw new RangeError(`scalarBits: ${dtype} is not a 1-, 2- or 4-byte type`);
  }
}
