/**
 * The state a schedule works on: the module (immutable IR, replaced wholesale by each primitive),
 * the values of sampled expression variables, and the random engine. `fork()` makes the working
 * copy a primitive runs on; the schedule adopts it only when the primitive succeeds, so a failed
 * call leaves the schedule unchanged.
 */
import { type IRModule, type PrimFunc, getFunction, withFunction } from "@tessera/ir";
import type { ExprRV } from "../handles.js";
import type { RandomEngine } from "../random.js";
import { type NodeEntry, TreeIndex } from "./tree-index.js";

export class ScheduleState {
  private indexes = new Map<string, TreeIndex>();

  constructor(
    private module: IRModule,
    /** The function `getBlock` searches by default (TVM's `work_on`). */
    public funcName: string,
    readonly exprValues: Map<ExprRV, number>,
    readonly rng: RandomEngine,
  ) {}

  get mod(): IRModule {
    return this.module;
  }

  func(name = this.funcName): PrimFunc {
    return getFunction(this.module, name);
  }

  index(name = this.funcName): TreeIndex {
    let idx = this.indexes.get(name);
    if (idx === undefined || idx.func !== getFunction(this.module, name)) {
      idx = new TreeIndex(getFunction(this.module, name));
      this.indexes.set(name, idx);
    }
    return idx;
  }

  /** Finds the function and entry holding the node with stable id `id`. */
  locate(id: number): { funcName: string; entry: NodeEntry } | undefined {
    const current = this.index().entry(id);
    if (current !== undefined) return { funcName: this.funcName, entry: current };
    for (const name of this.module.functions.keys()) {
      if (name === this.funcName) continue;
      const entry = this.index(name).entry(id);
      if (entry !== undefined) return { funcName: name, entry };
    }
    return undefined;
  }

  /** Replaces one function of the module. */
  setFunc(name: string, func: PrimFunc): void {
    this.module = withFunction(this.module, name, func);
    this.indexes.delete(name);
  }

  fork(): ScheduleState {
    const s = new ScheduleState(this.module, this.funcName, new Map(this.exprValues), this.rng.clone());
    s.indexes = new Map(this.indexes);
    return s;
  }
}
