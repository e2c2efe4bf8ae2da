/**
 * Random variables (TVM's "RVs"): the handles a schedule hands out. Block and loop handles name a
 * node by its stable id (see `state/node-ids.ts`), so they stay valid across every transformation
 * that keeps the node, and report a clear error once it is gone. `ExprRV` is an integer decided by
 * a sampling instruction; its value lives in the schedule's symbol table.
 */
let nextExprId = 1;

export class BlockRV {
  readonly kind = "BlockRV";
  constructor(
    /** Stable id of the block inside its schedule. */
    readonly uid: number,
    /** The block's name when the handle was made (for messages). */
    readonly nameHint: string,
  ) {}
  toString(): string {
    return `BlockRV(${this.nameHint})`;
  }
}

export class LoopRV {
  readonly kind = "LoopRV";
  constructor(
    readonly uid: number,
    readonly nameHint: string,
  ) {}
  toString(): string {
    return `LoopRV(${this.nameHint})`;
  }
  /** Location marks returned by `sampleComputeLocation`: "at the root" and "inline". */
  static readonly ROOT = new LoopRV(-1, "root");
  static readonly INLINE = new LoopRV(-2, "inline");
  get isRootMark(): boolean {
    return this.uid === -1;
  }
  get isInlineMark(): boolean {
    return this.uid === -2;
  }
}

export class ExprRV {
  readonly kind = "ExprRV";
  readonly id = nextExprId++;
  constructor(readonly nameHint = "v") {}
  toString(): string {
    return `ExprRV(${this.nameHint})`;
  }
}

export type RV = BlockRV | LoopRV | ExprRV;

export function isRV(x: unknown): x is RV {
  return x instanceof BlockRV || x instanceof LoopRV || x instanceof ExprRV;
}
