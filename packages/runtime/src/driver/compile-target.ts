/**
 * What to compile for: the local device's CUBIN when the target is `cuda` or names the device's
 * own architecture; PTX of the target's architecture (JIT-compiled by the driver) when the target
 * names an older GPU than the device, so that a module built for e.g. `nvidia/tesla-t4` still
 * runs on an H100 with the T4's limits. A target newer than the device cannot run on it.
 */
import type { CudaTarget } from "@tessera/codegen";
import { parseArch } from "../compile/arch.js";
import type { DeviceInfo } from "../device.js";
import { BuildError } from "../module-args/errors.js";

export interface CompileTarget {
  readonly arch: string;
  readonly output: "cubin" | "ptx";
}

function ccNumber(arch: string): number {
  return Number(parseArch(arch).number.replace(/[a-z]$/, ""));
}

/**
 * `requiredArch`: the architecture-specific target the source needs (CudaModule.requiredArch,
 * "sm_90a" for wgmma): its CUBIN, on a device of that architecture only.
 */
export function compileTargetFor(target: CudaTarget, device: DeviceInfo, requiredArch?: string): CompileTarget {
  if (requiredArch !== undefined) {
    if (ccNumber(requiredArch) !== ccNumber(device.arch))
      throw new BuildError(`the module uses instructions of ${requiredArch} only (wgmma); device ${device.ordinal}, ${device.name}, is ${device.arch}`);
    return { arch: requiredArch, output: "cubin" };
  }
  if (target.name === "cuda" || parseArch(target.arch).number === parseArch(device.arch).number) return { arch: device.arch, output: "cubin" };
  if (ccNumber(target.arch) <= ccNumber(device.arch)) return { arch: target.arch, output: "ptx" };
  throw new BuildError(
    `target ${target.name} (${target.arch}) is newer than device ${device.ordinal}, ${device.name} (${device.arch}); ` +
      `build for "cuda" or an older target to run here`,
  );
}
