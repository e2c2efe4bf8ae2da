/**
 * Launch classes of candidates (grid and block of their kernels), so that no launch shape takes more than
 * its share of a batch (docs/architecture/meta-schedule-notes.md).
 */
import type { LoweredModule } from "@tessera/codegen";
import type { Schedule } from "@tessera/schedule";
import { loweredModuleFor } from "../postproc/verify-gpu-code.js";

/** The launch shape of a scheduled program's kernels ("grid/block; …"), or undefined when it was not lowered. */
export function launchClassOf(sch: Schedule): string | undefined {
  return launchClassOfModule(loweredModuleFor(sch.func));
}

/** The launch shape of a lowered module's kernels, or undefined for none. */
export function launchClassOfModule(module: LoweredModule | undefined): string | undefined {
  if (module === undefined || module.kernels.length === 0) return undefined;
  return module.kernels.map((k) => `${k.launch.grid.join("×")}/${k.launch.block.join("×")}`).join("; ");
}

/** Blocks of the largest grid among a candidate's kernels, read back from its launch class (launchClassOfModule's "g×g×g/b×b×b; …"), or undefined when not lowered. */
export function gridBlocksOf(candidate: { readonly launchClass?: string | undefined }): number | undefined {
  const launch = candidate.launchClass;
  if (launch === undefined || launch.length === 0) return undefined;
  let most = 0;
  for (const kernel of launch.split("; ")) {
    const grid = kernel.split("/")[0]!.split("×").map(Number);
    if (grid.some((g) => !Number.isInteger(g) || g < 1)) return undefined;
    most = Math.max(
      most,
      grid.reduce((a, b) => a * b, 1),
    );
  }
  return most;
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
