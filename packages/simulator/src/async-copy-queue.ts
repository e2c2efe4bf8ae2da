/**
 * cp.async as a GPU thread sees it: a copy is not visible until its group completes.
 *
 * Per thread, issued copies join the open group; `commit` closes it; `wait(n)` completes every
 * group but the newest `n` committed ones, landing their copies in issue order; whatever is still
 * pending when the thread ends (including an uncommitted group) lands then. Until a copy lands, its
 * destination keeps the old (poisoned or stale) data, so a missing or too lenient wait gives wrong
 * results, and the race detector sees the shared write at completion (through `record`), not at
 * issue. The source is read when the copy is issued: a GPU may read it at any time until the copy
 * completes, and the global inputs a kernel copies from are not written while copies are in flight.
 */
import { AsyncCopyQueue, type IssuedCopy, landCopy } from "@tessera/ir/executor-kit";

export class DeferredCopies extends AsyncCopyQueue {
  /** Committed groups, oldest first. */
  private readonly committed: IssuedCopy[][] = [];
  private open: IssuedCopy[] = [];

  protected issue(c: IssuedCopy): void {
    this.open.push(c);
  }

  commit(): void {
    // An empty group still counts: cp.async.commit_group with no copies creates one.
    this.committed.push(this.open);
    this.open = [];
  }

  wait(inflight: number): void {
    const keep = Math.max(0, Math.trunc(inflight));
    while (this.committed.length > keep) for (const c of this.committed.shift()!) landCopy(c);
  }

  /** Takes every copy not landed yet out of the queue (committed groups and the open one), oldest first. */
  takeAll(): IssuedCopy[] {
    const taken = [...this.committed.flat(), ...this.open];
    this.committed.length = 0;
    this.open = [];
    return taken;
  }

  drain(): void {
    this.wait(0);
    for (const c of this.open) landCopy(c);
    this.open = [];
  }
}
