/** Packing kernel arguments into the buffer whose element addresses cuLaunchKernel receives. */
import { dtypeBytes, type DType } from "./dtype.js";
import type { KernelParam } from "./launch-metadata.js";
import { isTensorMapArg, TENSOR_MAP_ALIGNMENT, TENSOR_MAP_BYTES, type TensorMapArg } from "./tensor-map.js";

/** Anything with a device address: an NDArray, or a raw CUdeviceptr. */
export interface DevicePointerLike {
  readonly ptr: bigint;
}

/** A by-value scalar of an explicit type. */
export interface ScalarArg {
  readonly dtype: DType;
  readonly value: number | bigint;
}

/** A kernel argument: a buffer, a raw pointer, a typed scalar, a tensor map, or a plain number (int32 unless metadata says otherwise). */
export type KernelArg = DevicePointerLike | bigint | ScalarArg | TensorMapArg | number;

export const scalar = (dtype: DType, value: number | bigint): ScalarArg => ({ dtype, value });
export const i32 = (v: number): ScalarArg => scalar("int32", v);
export const u32 = (v: number): ScalarArg => scalar("uint32", v);
export const i64 = (v: number | bigint): ScalarArg => scalar("int64", v);
export const u64 = (v: number | bigint): ScalarArg => scalar("uint64", v);
export const f32 = (v: number): ScalarArg => scalar("float32", v);
export const f64 = (v: number): ScalarArg => scalar("float64", v);

export interface PackedArgs {
  bytes: Uint8Array;
  offsets: Uint32Array;
}

function isScalarArg(a: unknown): a is ScalarArg {
  return typeof a === "object" && a !== null && "dtype" in a && "value" in a;
}

function isPointerLike(a: unknown): a is DevicePointerLike {
  return typeof a === "object" && a !== null && "ptr" in a;
}

type Slot = { kind: "ptr"; value: bigint } | { kind: "scalar"; dtype: DType; value: number | bigint } | { kind: "bytes"; value: Uint8Array };

function toSlot(arg: KernelArg, param: KernelParam | undefined, index: number, kernel: string): Slot {
  const where = `kernel '${kernel}' argument ${index}${param !== undefined ? ` (${param.name})` : ""}`;
  if (param?.kind === "tensor_map" || isTensorMapArg(arg)) {
    if (!isTensorMapArg(arg)) throw new TypeError(`${where}: expected a tensor map (encodeTensorMap)`);
    if (param !== undefined && param.kind !== "tensor_map") throw new TypeError(`${where}: expected a ${param.kind}, got a tensor map`);
    if (arg.tensorMap.byteLength !== TENSOR_MAP_BYTES)
      throw new TypeError(`${where}: a tensor map is ${TENSOR_MAP_BYTES} bytes, got ${arg.tensorMap.byteLength}`);
    return { kind: "bytes", value: arg.tensorMap };
  }
  if (param?.kind === "buffer" || (param === undefined && (isPointerLike(arg) || typeof arg === "bigint"))) {
    if (isPointerLike(arg)) return { kind: "ptr", value: arg.ptr };
    if (typeof arg === "bigint") return { kind: "ptr", value: arg };
    throw new TypeError(`${where}: expected a device buffer`);
  }
  if (isPointerLike(arg) || typeof arg === "bigint") {
    if (typeof arg === "bigint" && param !== undefined) return { kind: "scalar", dtype: param.dtype, value: arg };
    throw new TypeError(`${where}: expected a scalar of type ${param?.dtype ?? "?"}, got a buffer`);
  }
  if (isScalarArg(arg)) {
    if (param !== undefined && param.dtype !== arg.dtype) throw new TypeError(`${where}: expected ${param.dtype}, got ${arg.dtype}`);
    return { kind: "scalar", dtype: arg.dtype, value: arg.value };
  }
  if (param !== undefined) return { kind: "scalar", dtype: param.dtype, value: arg };
  if (!Number.isInteger(arg)) throw new TypeError(`${where}: a non-integer number needs a type (f32(x) or f64(x)) or launch metadata`);
  return { kind: "scalar", dtype: "int32", value: arg };
}

function writeScalar(view: DataView, offset: number, dtype: DType, value: number | bigint): void {
  const n = Number(value);
  switch (dtype) {
    case "bool":
    case "uint8":
      view.setUint8(offset, n);
      return;
    case "int8":
      view.setInt8(offset, n);
      return;
    case "int16":
      view.setInt16(offset, n, true);
      return;
    case "uint16":
      view.setUint16(offset, n, true);
      return;
    case "int32":
      view.setInt32(offset, n, true);
      return;
    case "uint32":
      view.setUint32(offset, n, true);
      return;
    case "int64":
      view.setBigInt64(offset, BigInt(value), true);
      return;
    case "uint64":
      view.setBigUint64(offset, BigInt(value), true);
      return;
    case "float32":
      view.setFloat32(offset, n, true);
      return;
    case "float64":
      view.setFloat64(offset, n, true);
      return;
    case "float16":
    case "bfloat16":
      throw new TypeError(`${dtype} scalars are not supported as kernel arguments; pass the bits as uint16`);
  }
}

/**
 * Lays the arguments out one after another, each at its natural alignment; cuLaunchKernel gets
 * `bytes + offsets[i]` as the address of argument i.
 */
export function packArgs(args: readonly KernelArg[], params: readonly KernelParam[] | undefined, kernel: string): PackedArgs {
  if (params !== undefined && params.length !== args.length)
    throw new RangeError(`kernel '${kernel}' takes ${params.length} arguments (${params.map((p) => p.name).join(", ")}), got ${args.length}`);
  const slots = args.map((a, i) => toSlot(a, params?.[i], i, kernel));
  const offsets = new Uint32Array(slots.length);
  let size = 0;
  slots.forEach((s, i) => {
    const width = s.kind === "ptr" ? 8 : s.kind === "bytes" ? s.value.byteLength : dtypeBytes(s.dtype);
    const alignment = s.kind === "bytes" ? TENSOR_MAP_ALIGNMENT : width;
    size = Math.ceil(size / alignment) * alignment;
    offsets[i] = size;
    size += width;
  });
  const bytes = new Uint8Array(Math.max(8, Math.ceil(size / 8) * 8));
  const view = new DataView(bytes.buffer);
  slots.forEach((s, i) => {
    const off = offsets[i] as number;
    if (s.kind === "ptr") view.setBigUint64(off, s.value, true);
    else if (s.kind === "bytes") bytes.set(s.value, off);
    else writeScalar(view, off, s.dtype, s.value);
  });
  return { bytes, offsets };
}
