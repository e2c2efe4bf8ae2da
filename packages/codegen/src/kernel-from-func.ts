/**
 * Wraps a PrimFunc that is already in lowered device form (one kernel: flat buffers, launch
 * dimensions as `thread_extent` attributes) into a one-kernel LoweredModule: for simulating or
 * generating code from hand-written lowered TVMScript, and as a stand-in for `lower` in tests.
 */
import type { PrimFunc } from "@tessera/ir";
import { LoweringError } from "./lower/errors.js";
import { makeDeviceKernel } from "./lower/kernel/device-kernel.js";
import { functionLaunchBounds } from "./lower/kernel/launch-bounds.js";
import type { ArgumentSource, DeviceKernel, DeviceKernelParam, LoweredModule } from "./lowered.js";
import type { CudaTarget } from "./targets/cuda.js";
import { target } from "./targets/target.js";

const WHAT = "moduleFromKernelFunc";

export interface KernelModuleOptions {
  /** The module's name (default: the function's global symbol, else "main"); the kernel is `<name>_kernel`. */
  readonly name?: string;
  /** Default `nvidia/tesla-t4`. */
  readonly target?: CudaTarget;
}

function globalSymbol(func: PrimFunc): string {
  const symbol = func.attrs["global_symbol"];
  return typeof symbol === "string" && symbol !== "" ? symbol : "main";
}

/**
 * A kernel whose parameters are the function's, in order (buffers from the bufferMap, other
 * parameters as scalars). `sources` maps a buffer name to where its argument comes from
 * (default: the parameter of the same position).
 */
export function kernelFromFunc(func: PrimFunc, name: string, sources: Readonly<Record<string, ArgumentSource>> = {}): DeviceKernel {
  const params: DeviceKernelParam[] = func.params.map((param, index) => {
    const buffer = func.bufferMap.get(param);
    return buffer === undefined
      ? { kind: "scalar", name: param.name, var: param, dtype: param.dtype }
      : { kind: "buffer", name: buffer.name, buffer, source: sources[buffer.name] ?? { kind: "param", index } };
  });
  const fail = (detail: string): never => {
    throw new LoweringError(WHAT, `kernel ${name}: ${detail}`);
  };
  return makeDeviceKernel(name, params, func.body, fail, functionLaunchBounds(func, fail));
}

export function moduleFromKernelFunc(func: PrimFunc, opts: KernelModuleOptions = {}): LoweredModule {
  const name = opts.name ?? globalSymbol(func);
  const kernel = kernelFromFunc(func, `${name}_kernel`);
  return { name, target: opts.target ?? target("nvidia/tesla-t4"), source: func, workspaces: [], kernels: [kernel], stages: [] };
}
