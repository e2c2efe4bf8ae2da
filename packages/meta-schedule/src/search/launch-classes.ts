/**
 * Diversity of a measured batch by kernel structure. The evolutionary search hands out the
 * cost model's best programs; when the model has learned that one launch shape is fast (say 64
 * accumulators per thread in 256-thread blocks), the whole batch is variations of it and the
 * other shapes are never measured again — even where their best instance, which needs several
 * knobs right at once, is faster. Capping each shape's share of a batch keeps the runner-up
 * shapes measured (their best-scored instances, so the model learns what makes them fast) at
 * the price of a few of the favourite's near-duplicates.
 *
 * A program's class is the launch shape of its kernels (grid and block of each, in order), read
 * from the module VerifyGPUCode lowered; it fixes the tile per block and the work per thread.
 * Programs without one (CPU targets, spaces without VerifyGPUCode) are one class nobody caps.
 */
import type { Schedule } from "@tessera/schedule";
import { loweredModuleFor } from "../postproc/verify-gpu-code.js";

/** The launch shape of a scheduled program's kernels ("grid/block; …"), or undefined when it was not lowered. */
export function launchClassOf(sch: Schedule): string | undefined {
  const module = loweredModuleFor(sch.func);
  if (module === undefined || module.kernels.length === 0) return undefined;
  return module.kernels.map((k) => `${k.launch.grid.join("×")}/${k.launch.block.join("×")}`).join("; ");
}

/**
 * `ranked` (best first) reordered so that its first `count` items hold at most `cap` of any one
 * class: items over their class's cap move behind, in their order, and fill in only when the
 * other classes run out. Items whose class is undefined are never capped.
 */
export function capClassShare<T>(ranked: readonly T[], count: number, cap: number, classOf: (item: T) => string | undefined): T[] {
  if (!(cap >= 1)) throw new RangeError(`capClassShare: cap must be at least 1, got ${cap}`);
  const admitted: T[] = [];
  const deferred: T[] = [];
  const taken = new Map<string, number>();
  for (const item of ranked) {
    const key = classOf(item);
    const n = key === undefined ? 0 : (taken.get(key) ?? 0);
    if (admitted.length < count && (key === undefined || n < cap)) {
      admitted.push(item);
      if (key !== undefined) taken.set(key, n + 1);
    } else {
      deferred.push(item);
    }
  }
  return [...admitted, ...deferred];
}
