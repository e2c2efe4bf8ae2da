/**
 * What a primitive sees: the working state, handle resolution with clear stale-handle errors, and
 * a way to commit the rewritten function. Primitives never touch the `Schedule` object itself.
 */
import type { Block, PrimFunc, Stmt } from "@tessera/ir";
import { StaleHandleError, ScheduleUsageError } from "./errors.js";
import { BlockRV, ExprRV, LoopRV } from "./handles.js";
import type { ScheduleState } from "./state/schedule-state.js";
import type { BlockEntry, LoopEntry, TreeIndex } from "./state/tree-index.js";

export class PrimitiveContext {
  constructor(readonly state: ScheduleState) {}

  /** The function the primitive works on: the one holding its first resolved handle, else the default. */
  funcName: string | undefined;

  get func(): PrimFunc {
    return this.state.func(this.funcName ?? this.state.funcName);
  }

  get index(): TreeIndex {
    return this.state.index(this.funcName ?? this.state.funcName);
  }

  get rng() {
    return this.state.rng;
  }

  block(rv: unknown, primitive: string, what = "block"): BlockEntry {
    if (!(rv instanceof BlockRV)) {
      throw new ScheduleUsageError(primitive, `expected a block handle (BlockRV) for '${what}', got ${describe(rv)}`);
    }
    const found = this.state.locate(rv.uid);
    if (found === undefined || found.entry.kind !== "block") {
      throw new StaleHandleError(
        primitive,
        `The block no longer exists in the IRModule: the handle of block "${rv.nameHint}" refers to a block that an earlier primitive removed or replaced`,
      );
    }
    this.bindFunc(found.funcName, primitive);
    return found.entry;
  }

  loop(rv: unknown, primitive: string, what = "loop"): LoopEntry {
    if (!(rv instanceof LoopRV) || rv.uid < 0) {
      throw new ScheduleUsageError(primitive, `expected a loop handle (LoopRV) for '${what}', got ${describe(rv)}`);
    }
    const found = this.state.locate(rv.uid);
    if (found === undefined || found.entry.kind !== "loop") {
      throw new StaleHandleError(
        primitive,
        `The loop no longer exists in the IRModule: the handle of loop "${rv.nameHint}" refers to a loop that an earlier primitive removed or replaced`,
      );
    }
    this.bindFunc(found.funcName, primitive);
    return found.entry;
  }

  /** The integer value of a sampled variable or a literal. */
  value(x: unknown, primitive: string, what: string): number {
    if (typeof x === "number" && Number.isInteger(x)) return x;
    if (x instanceof ExprRV) {
      const v = this.state.exprValues.get(x);
      if (v === undefined) throw new ScheduleUsageError(primitive, `${what}: ${x} was not produced by this schedule`);
      return v;
    }
    throw new ScheduleUsageError(primitive, `${what} must be an integer or a sampled value (ExprRV), got ${describe(x)}`);
  }

  newExprRV(value: number, nameHint = "v"): ExprRV {
    const rv = new ExprRV(nameHint);
    this.state.exprValues.set(rv, value);
    return rv;
  }

  blockRV(entry: BlockEntry): BlockRV {
    return new BlockRV(entry.id, entry.node.name);
  }

  /** The handle of a block a primitive built and committed. */
  committedBlockRV(block: Block): BlockRV {
    const entry = this.index.entryOf(block);
    if (entry === undefined || entry.kind !== "block") throw new Error("internal error: the new block is not in the committed IR");
    return this.blockRV(entry);
  }

  loopRV(entry: LoopEntry): LoopRV {
    return new LoopRV(entry.id, entry.node.loopVar.name);
  }

  /** Installs the rewritten function (body or whole function) and re-indexes it. */
  commit(next: Stmt | PrimFunc): void {
    const name = this.funcName ?? this.state.funcName;
    const func = next.kind === "PrimFunc" ? next : { ...this.func, body: next };
    this.state.setFunc(name, func);
  }

  private bindFunc(name: string, primitive: string): void {
    if (this.funcName === undefined) this.funcName = name;
    else if (this.funcName !== name) {
      throw new ScheduleUsageError(primitive, `the handles given belong to different functions (${this.funcName} and ${name})`);
    }
  }
}

export function describe(x: unknown): string {
  if (x === null) return "null";
  if (x === undefined) return "undefined";
  if (typeof x === "object") return (x as { toString(): string }).toString === Object.prototype.toString ? JSON.stringify(x) : String(x);
  return `${typeof x} ${String(x)}`;
}
