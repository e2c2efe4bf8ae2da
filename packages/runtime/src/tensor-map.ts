/**
 * Tensor maps on the host: a kernel that loads a buffer with TMA takes the buffer's CUtensorMap
 * (launch-metadata kind "tensor_map", after the buffer's pointer), which the driver encodes
 * (`cuTensorMapEncodeTiled`, through the native addon) from the array's address and the shape,
 * row stride, box and swizzle the code generator recorded.
 */
import { checkTensorMap } from "@tessera/ir";
import type { KernelParam } from "./launch-metadata.js";
import { requireCuda } from "./device.js";
import { dtypeBytes, type DType } from "./dtype.js";
import { native } from "./errors.js";

/** A CUtensorMap passed by value (128 bytes, 64-byte aligned in the argument buffer). */
export interface TensorMapArg {
  readonly tensorMap: Uint8Array;
}

export const TENSOR_MAP_BYTES = 128;
export const TENSOR_MAP_ALIGNMENT = 64;

/** What the metadata records (or a DeviceKernel's TensorMapSpec). */
type TensorMapParam = Readonly<{ [K in keyof NonNullable<KernelParam["tensorMap"]>]: Readonly<NonNullable<KernelParam["tensorMap"]>[K]> }>;

/** CUtensorMapDataType of each element type a tensor map can describe (tf32 operands are float32 in memory). */
const DATA_TYPES: Partial<Record<DType, number>> = {
  uint8: 0,
  uint16: 1,
  uint32: 2,
  int32: 3,
  uint64: 4,
  int64: 5,
  float16: 6,
  float32: 7,
  float64: 8,
  bfloat16: 9,
};

/** CUtensorMapSwizzle of each swizzle span. */
const SWIZZLES: Readonly<Record<number, number>> = { 0: 0, 32: 1, 64: 2, 128: 3 };

export function isTensorMapArg(a: unknown): a is TensorMapArg {
  return typeof a === "object" && a !== null && "tensorMap" in a && (a as TensorMapArg).tensorMap instanceof Uint8Array;
}

/** The tensor map of the array at `address` that `param` (of kernel `kernel`) describes. */
export function encodeTensorMap(address: bigint, dtype: DType, param: TensorMapParam, buffer: string, kernel: string): TensorMapArg {
  const where = `kernel '${kernel}': tensor map of buffer ${buffer}`;
  checkTensorMap({ buffer, dtype, ...param });
  const dataType = DATA_TYPES[dtype];
  if (dataType === undefined) throw new TypeError(`${where}: TMA does not describe ${dtype} elements`);
  if (address % 16n !== 0n) throw new RangeError(`${where}: the array's address ${address} is not 16-byte aligned`);
  const addon = requireCuda(`encodeTensorMap(${buffer})`);
  if (addon.encodeTensorMapTiled === undefined)
    throw new Error(`${where}: the native addon predates tensor maps; rebuild it (pnpm --filter @tessera/runtime build:native)`);
  const [rows, cols] = param.shape;
  const [boxRows, boxCols] = param.box;
  const map = native(() =>
    addon.encodeTensorMapTiled!(dataType, address, [cols, rows], [param.rowStride * dtypeBytes(dtype)], [boxCols, boxRows], SWIZZLES[param.swizzle]!),
  );
  if (map.byteLength !== TENSOR_MAP_BYTES) throw new Error(`${where}: the driver returned ${map.byteLength} bytes, not ${TENSOR_MAP_BYTES}`);
  return { tensorMap: map };
}
