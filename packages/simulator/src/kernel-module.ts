/**
 * Wraps a PrimFunc that is already in lowered device form (one kernel: flat buffers, launch
 * dimensions as `thread_extent` attributes) into a one-kernel LoweredModule — for simulating
 * hand-written lowered TVMScript, and as a stand-in for `lower` in tests.
 */
import { type DeviceKernel, type DeviceKernelParam, type KernelParam, type LoweredModule, type Target, target } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import { dimsOfBindings, findThreadBindings } from "./launch.js";

export interface KernelModuleOptions {
  /** The module's name (default: the function's global symbol, else "main"). */
  readonly name?: string;
  /** Default `nvidia/tesla-t4`. */
  readonly target?: Target;
}

/** The kernel's parameters are the function's (buffers come from argument `index`); launch dimensions come from the body. */
export function moduleFromKernelFunc(func: PrimFunc, opts: KernelModuleOptions = {}): LoweredModule {
  const symbol = func.attrs["global_symbol"];
  const name = opts.name ?? (typeof symbol === "string" && symbol !== "" ? symbol : "main");
  const kernelName = `${name}_kernel`;
  const params: DeviceKernelParam[] = func.params.map((param, index) => {
    const buffer = func.bufferMap.get(param);
    return buffer === undefined
      ? { kind: "scalar", name: param.name, var: param, dtype: param.dtype }
      : { kind: "buffer", name: buffer.name, buffer, source: { kind: "param", index } };
  });
  const { grid, block } = dimsOfBindings(findThreadBindings(kernelName, func.body));
  const kernel: DeviceKernel = {
    name: kernelName,
    params,
    body: func.body,
    launch: {
      name: kernelName,
      grid: [...grid],
      block: [...block],
      dynamicSharedBytes: 0,
      params: params.map((p) => ({
        name: p.name,
        kind: p.kind,
        dtype: (p.kind === "buffer" ? p.buffer.dtype : p.dtype) as KernelParam["dtype"],
      })),
    },
    sharedBytes: 0,
  };
  return { name, target: opts.target ?? target("nvidia/tesla-t4"), source: func, workspaces: [], kernels: [kernel], stages: [] };
}
