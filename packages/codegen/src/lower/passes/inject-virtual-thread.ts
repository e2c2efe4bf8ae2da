/**
 * Pass 10, `injectVirtualThread`: each `AttrStmt("virtual_thread", v, n)` becomes a serial loop
 * `for v' in range(n)` over its body, run by every (real) thread. Virtual threads of one thread
 * then run one after another, so a barrier inside one would wait for work the same thread has not
 * done yet: that is rejected.
 */
import { type AttrStmt, IRMutator, type Stmt, forLoop, substituteStmt, variable, withBody } from "@tessera/ir";
import { LoweringError } from "../errors.js";
import type { Pass } from "../pass.js";
import { VIRTUAL_THREAD } from "../kernel/thread-env.js";
import { containsBarrier } from "../kernel/sync.js";

const PASS = "injectVirtualThread";

export const injectVirtualThreadPass: Pass = {
  name: PASS,
  run(func) {
    const body = new VirtualThreadInjector().visitStmt(func.body);
    return body === func.body ? func : withBody(func, body);
  },
};

class VirtualThreadInjector extends IRMutator {
  override visitStmt(s: Stmt): Stmt {
    if (s.kind === "AttrStmt" && s.key === VIRTUAL_THREAD) return this.inject(s);
    return super.visitStmt(s);
  }

  private inject(s: AttrStmt): Stmt {
    const tag = s.node?.name ?? "vthread";
    if (s.node === undefined) throw new LoweringError(PASS, `a virtual_thread attribute has no thread variable`);
    const body = this.visitStmt(s.body);
    if (containsBarrier(body)) {
      throw new LoweringError(
        PASS,
        `virtual thread ${tag} contains a barrier (T.tvm_storage_sync); virtual threads run one after another ` +
          `inside a thread, so a barrier between them cannot synchronise: bind the loop to threadIdx instead of ${tag}`,
      );
    }
    // A fresh variable per loop: the tag's variable may be bound by several attributes.
    const loopVar = variable(tag.replace(/\./g, "_"), s.node.dtype);
    return forLoop(loopVar, s.value, substituteStmt(body, new Map([[s.node, loopVar]])));
  }
}
