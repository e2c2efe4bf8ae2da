/**
 * Loops without a barrier (or a warp-collective ldmatrix / mma or an mbarrier wait, which yield too), taken out of the thread's generator function into plain functions.
 *
 * A simulated thread is a generator (it yields at each barrier), and V8 optimises the loops of a
 * generator function much less well than those of an ordinary function: on the course's 2048³
 * gemm, the same loops ran about twice as fast once outside. So each outermost `For` whose body
 * holds no barrier becomes a function `$loopN(...)` next to the generator (the executor's
 * `LoopOutliner`, which says how), called where the loop stood. The loop runs to its end without
 * yielding, so no other thread runs meanwhile.
 *
 * That also lets `local` allocations inside such a loop reuse one array per allocation site (see
 * `scratchArray`): the allocation lives only while the loop runs, and only one thread runs it at
 * a time; it is poisoned at every entry, as a fresh allocation is.
 */
import { type Call, type For, MBARRIER_WAIT_PARITY, type Stmt, forEachStmt } from "@tessera/ir";
import { type EmitContext, LoopOutliner } from "@tessera/ir/executor-kit";
import { isCollectiveMmaCall } from "./mma/emit-mma.js";

/** The generated functions' helper that poisons an array and returns it. */
export const POISON_HELPER = "function $poisoned(a, v) { for (let i = 0; i < a.length; i++) a[i] = v; return a; }";

/** The simulator's outliner: loops that hold a barrier stay in the generator. */
export class KernelLoopOutliner {
  private readonly outliner: LoopOutliner;

  /**
   * @param extraNames names of the generator the loops may use besides those the context tracks
   *   (e.g. its asynchronous copy queue)
   */
  constructor(extraNames: readonly string[]) {
    this.outliner = new LoopOutliner({ extraNames, keepInPlace: containsBarrier, nested: false });
  }

  /** The `EmitHooks.loop` hook. */
  readonly loop = (ctx: EmitContext, loop: For, emitInPlace: () => void): void => this.outliner.loop(ctx, loop, emitInPlace);

  /** Whether code is being emitted into an outlined loop now. */
  get outlining(): boolean {
    return this.outliner.outlining;
  }

  /**
   * A module-level array of `length` elements of `ctor` for one `local` allocation site of an
   * outlined loop, as a JS expression that poisons it with `poison` first.
   */
  scratchArray(ctx: EmitContext, ctor: string, length: number, poison: string): string {
    return `$poisoned(${this.outliner.scratchArray(ctx, ctor, length)}, ${poison})`;
  }

  /** Declarations to place before the generator: the scratch arrays and the outlined loops. */
  declarations(): string[] {
    return this.outliner.declarations();
  }
}

function containsBarrier(stmt: Stmt): boolean {
  let found = false;
  forEachStmt(stmt, (s) => {
    if (found) return false;
    if (
      s.kind === "Evaluate" &&
      s.value.kind === "Call" &&
      ((s.value as Call).op === "tvm_storage_sync" || (s.value as Call).op === MBARRIER_WAIT_PARITY || isCollectiveMmaCall(s.value as Call))
    )
      found = true;
    return !found;
  });
  return found;
}
