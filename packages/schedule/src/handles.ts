/**
 * Random variables (TVM's "RVs"): the handles a schedule hands out. Block and loop handles name a
 * node by its stable id (see `state/node-ids.ts`), so they stay valid across every transformation
 * that keeps the node, and report a clear error once it is gone. `ExprRV` is an integer decided by
 * a sampling instruction; its value lives in the schedule's symbol table.
 */
let nextExprId = 1;

const ROOT_MARK_UID = -1;
const INLINE_MARK_UID = -2;

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
  /**
   * Location marks: "at the root" and "inline". `LoopRV.ROOT` / `LoopRV.INLINE` are the constants to
   * pass to `computeAt` by hand; `sampleComputeLocation` returns a fresh mark each time (`rootMark()`
   * / `inlineMark()`), so every sampled location is its own handle in the trace and replays on its
   * own. Any handle with a mark's uid means that mark.
   */
  static rootMark(): LoopRV {
    return new LoopRV(ROOT_MARK_UID, "root");
  }
  static inlineMark(): LoopRV {
    return new LoopRV(INLINE_MARK_UID, "inline");
  }
  static readonly ROOT = LoopRV.rootMark();
  static readonly INLINE = LoopRV.inlineMark();
  get isRootMark(): boolean {
    return this.uid === ROOT_MARK_UID;
  }
  get isInlineMark(): boolean {
    return this.uid === INLINE_MARK_UID;
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
