/**
 * Wraps a PrimFunc that is already in lowered device form (one kernel: flat buffers, launch
 * dimensions as `thread_extent` attributes) into a one-kernel LoweredModule: for simulating or
 * generating code from hand-written lowered TVMScript, and as a stand-in for `lower` in tests.
 */
import type { PrimFunc } from "@tessera/ir";
import { LoweringError } from "./lower/errors.js";
import { makeDeviceKernel } from "./lower/kernel/device-kernel.js";
import { functionLaunchBounds } from "./lower/kernel/launch-bounds.js";
import type { ArgumentSource, DeviceKernel, DeviceKernelParam, LoweredModule, Workspace } from "./lowered.js";
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

/** Hand-written lowered kernels that run in order over `source`'s arguments and the `workspaces` (e.g. a pre-pass and its GEMM). */
export interface KernelFuncsPlan {
  readonly name: string;
  /** The function the kernels compute together: its parameters are the module's arguments. */
  readonly source: PrimFunc;
  readonly workspaces: readonly Workspace[];
  /** Each kernel in launch order, and where its buffer parameters come from, by name. */
  readonly kernels: readonly { readonly func: PrimFunc; readonly sources: Readonly<Record<string, ArgumentSource>> }[];
}

/**
 * A LoweredModule of several hand-written lowered kernels (`<name>_kernel_<i>`), each buffer
 * parameter bound by the plan's `sources` to a parameter of `source` or a workspace. Every buffer
 * parameter must be named there, and every index must exist.
 */
export function moduleFromKernelFuncs(plan: KernelFuncsPlan, opts: Omit<KernelModuleOptions, "name"> = {}): LoweredModule {
  const kernels = plan.kernels.map(({ func, sources }, i) => {
    const name = `${plan.name}_kernel_${i}`;
    const fail = (detail: string): never => {
      throw new LoweringError(WHAT, `kernel ${name}: ${detail}`);
    };
    const buffers = func.params.flatMap((p) => func.bufferMap.get(p)?.name ?? []);
    for (const buffer of buffers) {
      const source = sources[buffer];
      if (source === undefined) fail(`buffer ${buffer} has no source (name a parameter of the module's function or a workspace)`);
      else if (source.kind === "param" ? source.index >= plan.source.params.length : source.index >= plan.workspaces.length)
        fail(`buffer ${buffer}'s source is ${source.kind} ${source.index}, which does not exist`);
    }
    for (const name of Object.keys(sources)) if (!buffers.includes(name)) fail(`a source is given for ${name}, which is no buffer parameter`);
    return kernelFromFunc(func, name, sources);
  });
  return { name: plan.name, target: opts.target ?? target("nvidia/tesla-t4"), source: plan.source, workspaces: plan.workspaces, kernels, stages: [] };
}
