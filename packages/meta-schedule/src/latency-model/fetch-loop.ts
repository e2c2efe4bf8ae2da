/**
 * The loop that stages a kernel's operands (a GEMM's k-chunk loop): the innermost loop whose body
 * both reads global memory into shared or local memory and synchronises the block. Each of its
 * iterations waits for a round of global loads — unless the loads are prefetched a round ahead:
 * the register-staged software pipeline stores the registers loaded by the previous iteration into
 * shared memory before it issues the next loads into the same registers, so the load latency
 * overlaps a whole iteration. (cp.async copies are asynchronous too.) A round whose operands are
 * prefetched in part still waits for the rest, for less long: the direct loads of a pipelined loop
 * can be scheduled ahead of the other operand's work.
 */
import { type Buffer, type PrimExpr, type Stmt, asAsyncCopy, forEachExpr, forEachStmt } from "@tessera/ir";

export interface FetchLoop {
  /** Iterations of the loop per thread (its extent times the extents of the loops around it). */
  readonly rounds: number;
  /**
   * The share of its global fetches (fetch statements: one per operand) issued a round before
   * their values are used: 1 for the register-prefetch pipeline, ½ when one of two operands is
   * staged for it, 0 without prefetching.
   */
  readonly prefetchedShare: number;
}

/**
 * The kernel's fetch loop, or undefined when it has none (no barrier, or no global fetch). A
 * software-pipelined loop comes with a prologue and an epilogue that may qualify too: the one with
 * the most iterations is the steady state.
 */
export function findFetchLoop(body: Stmt, extentOf: (e: PrimExpr) => number | undefined): FetchLoop | undefined {
  let found: FetchLoop | undefined;
  const visit = (s: Stmt, outer: number): boolean => {
    let any = false;
    forEachStmt(s, (t) => {
      if (t.kind !== "For") return true;
      if (!fetchesGlobal(t.body) || !synchronises(t.body)) return false;
      any = true;
      const iterations = outer * Math.max(1, extentOf(t.extent) ?? 1);
      // Innermost: a loop none of whose inner loops qualifies.
      if (!visit(t.body, iterations) && (found === undefined || iterations > found.rounds))
        found = { rounds: iterations, prefetchedShare: prefetchedShare(t.body) };
      return false;
    });
    return any;
  };
  visit(body, 1);
  return found;
}

function synchronises(s: Stmt): boolean {
  let yes = false;
  forEachExpr(s, (e) => {
    if (e.kind === "Call" && e.op === "tvm_storage_sync") yes = true;
  });
  return yes;
}

function fetchesGlobal(s: Stmt): boolean {
  let yes = false;
  forEachStmt(s, (t) => {
    if (t.kind === "BufferStore" && t.buffer.scope !== "global" && readsGlobal(t.value)) yes = true;
    if (t.kind === "Evaluate" && asAsyncCopyIn(t.value)) yes = true;
  });
  return yes;
}

function asAsyncCopyIn(e: PrimExpr): boolean {
  let yes = false;
  forEachExpr(e, (x) => {
    if (x.kind === "Call" && asAsyncCopy(x) !== undefined) yes = true;
  });
  return yes;
}

function readsGlobal(e: PrimExpr): boolean {
  let yes = false;
  forEachExpr(e, (x) => {
    if (x.kind === "BufferLoad" && x.buffer.scope === "global") yes = true;
  });
  return yes;
}

/**
 * Prefetching, read off the order of the loop body's statements: the share of the body's fetch
 * statements that issue their loads a round ahead — into a register buffer that the body stores
 * into shared memory before it loads it again (it holds the previous iteration's loads), or by
 * cp.async — against those that fetch for this round (straight into shared memory, or into
 * registers stored after the load).
 */
function prefetchedShare(body: Stmt): number {
  const storedToShared = new Set<Buffer["data"]>();
  let ahead = 0;
  let waited = 0;
  forEachStmt(body, (t) => {
    if (t.kind === "Evaluate" && asAsyncCopyIn(t.value)) ahead++;
    if (t.kind !== "BufferStore" || t.buffer.scope === "global") return true;
    if (t.buffer.scope.startsWith("shared")) {
      forEachExpr(t.value, (x) => {
        if (x.kind === "BufferLoad" && x.buffer.scope === "local") storedToShared.add(x.buffer.data);
      });
    }
    if (!readsGlobal(t.value)) return true;
    if (t.buffer.scope === "local" && storedToShared.has(t.buffer.data)) ahead++;
    else waited++;
    return true;
  });
  return ahead + waited === 0 ? 0 : ahead / (ahead + waited);
}
