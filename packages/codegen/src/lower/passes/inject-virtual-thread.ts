/**
 * Pass 10, `injectVirtualThread` (TVM's InjectVirtualThread): each `AttrStmt("virtual_thread", v,
 * n)` disappears and its body is run by every real thread for all `n` virtual threads. The
 * virtual thread is pushed down (kernel/vthread-injector.ts): what does not depend on `v` — the
 * k loop, the cooperative shared-memory fetch — stays once; the statements that do are
 * replicated per virtual thread index, and per-thread allocations that depend on `v` get one
 * slice per virtual thread (a 4×4 accumulator under 2×2 virtual threads becomes 64 registers).
 *
 * Nested virtual threads are injected innermost first, each for what depends on it alone. A
 * virtual_thread attribute inside another of the same variable only marks its scope again
 * (lowerOpaqueBlock gives a tag one variable) and is dropped.
 */
import { type AttrStmt, IRMutator, type Stmt, type Var, printExpr, withBody } from "@tessera/ir";
import { LoweringError } from "../errors.js";
import { type Pass, cudaPass } from "../pass.js";
import { VIRTUAL_THREAD } from "../kernel/thread-env.js";
import { virtualThreadDependents } from "../kernel/vthread-dependence.js";
import { VirtualThreadInjector } from "../kernel/vthread-injector.js";
import { requireNoBlocks } from "../util/block-checks.js";

const PASS = "injectVirtualThread";

export const injectVirtualThreadPass: Pass = cudaPass(PASS, (func) => {
  requireNoBlocks(PASS, func.body);
  const body = new VirtualThreadLowering().visitStmt(func.body);
  return body === func.body ? func : withBody(func, body);
});

class VirtualThreadLowering extends IRMutator {
  /** Extents of the virtual threads whose scope we are in. */
  private readonly enclosing = new Map<Var, number>();

  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "AttrStmt" && s.key === VIRTUAL_THREAD) return this.lower(s);
    return super.visitStmt(s);
  }

  private lower(s: AttrStmt): Stmt {
    const v = s.node;
    if (v === undefined) throw new LoweringError(PASS, "a virtual_thread attribute has no thread variable");
    const count = s.value.kind === "IntImm" ? s.value.value : undefined;
    if (count === undefined || count < 1) {
      throw new LoweringError(PASS, `virtual thread ${v.name} has extent ${printExpr(s.value)}; a virtual thread needs a constant extent of at least 1`);
    }
    const outer = this.enclosing.get(v);
    if (outer !== undefined) {
      if (outer !== count) {
        throw new LoweringError(PASS, `virtual thread ${v.name} is bound with extent ${outer} and, inside it, with extent ${count}`);
      }
      return this.visitStmt(s.body);
    }
    this.enclosing.set(v, count);
    const body = this.visitStmt(s.body);
    this.enclosing.delete(v);
    const dependents = virtualThreadDependents(body, v);
    return new VirtualThreadInjector({ pass: PASS, variable: v, count, dependents }).inject(body);
  }
}
