/**
 * Which records apply to a target. A record applies to the target it was measured for, and the two
 * names of the one C backend, `c` and `llvm` (TVM's CPU target, which Tessera compiles through C),
 * are one family: a record tuned for `llvm` is applied by `build --target c`, and the reverse, when
 * both compile for the same CPU (`-mcpu`) with the same thread count (`-num-cores`).
 */
import { type CTarget, isCTarget, target as resolveTarget } from "@tessera/codegen";

function cTargetOrUndefined(name: string): CTarget | undefined {
  try {
    const t = resolveTarget(name);
    return isCTarget(t) ? t : undefined;
  } catch {
    // Not a target this compiler knows (a record from elsewhere): only its exact name matches.
    return undefined;
  }
}

/** Whether a record measured for the target named `recorded` applies to the target named `wanted`. */
export function recordAppliesTo(recorded: string, wanted: string): boolean {
  if (recorded === wanted) return true;
  const a = cTargetOrUndefined(recorded);
  const b = cTargetOrUndefined(wanted);
  return a !== undefined && b !== undefined && a.march === b.march && a.numCores === b.numCores;
}
