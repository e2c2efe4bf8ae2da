/** Which GPU the grader uses: the local one, or none (`--no-gpu`, or no driver/device). */
import type { GpuBackend } from "../grade/numerics-types.js";
import { openGpuBackend } from "../gpu/index.js";

export type GpuChoice = { readonly gpu: GpuBackend; readonly reason?: undefined } | { readonly gpu: undefined; readonly reason: string };

export function chooseGpu(disabled: boolean): GpuChoice {
  if (disabled) return { gpu: undefined, reason: "--no-gpu was given" };
  const opened = openGpuBackend();
  return opened.ok ? { gpu: opened.backend } : { gpu: undefined, reason: opened.reason };
}
