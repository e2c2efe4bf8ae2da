/**
 * Test support: hand-written lowered TVMScript wrapped into LoweredModules, standing in for
 * `lower()` (kernels built by the package's own `kernelFromFunc`).
 */
import { type PrimFunc, parsePrimFunc } from "@tessera/ir";
import { kernelFromFunc, moduleFromKernelFunc } from "../../src/kernel-from-func.js";
import type { DeviceKernel, LoweredModule, Workspace } from "../../src/lowered.js";
import { cudaTarget, target } from "../../src/targets/target.js";

export { kernelFromFunc };

function globalSymbol(func: PrimFunc): string {
  const s = func.attrs.global_symbol;
  return typeof s === "string" ? s : "main";
}

/** A one-kernel module from lowered TVMScript; the kernel is `<global_symbol>_kernel`. */
export function moduleFromScript(script: string, targetName = "nvidia/tesla-t4"): LoweredModule {
  return moduleFromKernelFunc(parsePrimFunc(script), { target: cudaTarget(targetName) });
}

/** A module of several kernels; `source` declares the host-visible parameters. */
export function moduleOfKernels(source: PrimFunc, kernels: readonly DeviceKernel[], workspaces: readonly Workspace[] = []): LoweredModule {
  return { name: globalSymbol(source), target: target("nvidia/tesla-t4"), source, workspaces, kernels, stages: [] };
}
