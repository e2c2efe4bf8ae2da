/**
 * Host arguments of a WGSL module: one typed array per buffer parameter, one number per scalar,
 * in the order of the function's parameters; checked against the module's bindings.
 */
import type { DType } from "@tessera/ir";
import type { WgslKernel } from "@tessera/codegen";
import { WebGpuRuntimeError } from "./errors.js";

export type HostArray = Float32Array | Int32Array | Uint32Array | Uint16Array;
export type HostArg = HostArray | number;

/** The typed array a buffer of `dtype` is uploaded from (float16 as its bits, in a Uint16Array). */
const ARRAY_OF: Readonly<Partial<Record<DType, string>>> = {
  float32: "Float32Array",
  int32: "Int32Array",
  uint32: "Uint32Array",
  float16: "Uint16Array",
};

export function checkBufferArg(arg: HostArg | undefined, dtype: DType, where: string): HostArray {
  const expected = ARRAY_OF[dtype];
  if (expected === undefined) throw new WebGpuRuntimeError(`${where} has dtype ${dtype}, which WebGPU buffers cannot hold`);
  if (typeof arg !== "object" || arg?.constructor.name !== expected) {
    const got = typeof arg === "object" ? arg.constructor.name : typeof arg;
    throw new WebGpuRuntimeError(`${where} (${dtype}) needs a ${expected}, got ${got}`);
  }
  return arg;
}

/** The uniform bytes of a kernel's scalar parameters (4 bytes each, padded to 16). */
export function scalarBytes(kernel: WgslKernel, args: readonly HostArg[], paramIndex: ReadonlyMap<string, number>): Uint8Array<ArrayBuffer> | undefined {
  const uniform = kernel.bindings.find((b) => b.kind === "uniform");
  if (uniform === undefined || uniform.kind !== "uniform") return undefined;
  const bytes = new Uint8Array(Math.max(16, Math.ceil((uniform.members.length * 4) / 16) * 16));
  const view = new DataView(bytes.buffer);
  uniform.members.forEach((m, i) => {
    const index = paramIndex.get(m.name);
    const value = index === undefined ? undefined : args[index];
    if (typeof value !== "number") throw new WebGpuRuntimeError(`kernel ${kernel.name}: scalar parameter ${m.name} needs a number`);
    if (m.dtype === "float32") view.setFloat32(i * 4, value, true);
    else if (m.dtype === "uint32") view.setUint32(i * 4, value, true);
    else view.setInt32(i * 4, value, true);
  });
  return bytes;
}
