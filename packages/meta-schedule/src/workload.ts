/**
 * A workload: the function being tuned, identified by its structural hash (TVM's `Workload`,
 * keyed by `shash`). Two functions that are structurally equal share their tuning records.
 */
import { type IRModule, type PrimFunc, entryFunctionName, structuralHash } from "@tessera/ir";

export interface Workload {
  /** Structural hash of `func` (hex text), the database key. */
  readonly hash: string;
  readonly func: PrimFunc;
  /** The function's name in its module (`main` for a bare PrimFunc). */
  readonly name: string;
}

/** The workload of a PrimFunc, or of the entry function of a module. */
export function workloadOf(funcOrModule: PrimFunc | IRModule, name?: string): Workload {
  if (funcOrModule.kind === "IRModule") {
    const entry = name ?? entryFunctionName(funcOrModule);
    const func = funcOrModule.functions.get(entry);
    if (func === undefined) throw new RangeError(`workloadOf: the module has no function named "${entry}"`);
    return { hash: structuralHash(func), func, name: entry };
  }
  return { hash: structuralHash(funcOrModule), func: funcOrModule, name: name ?? "main" };
}
