/**
 * Remembers a fact about a block realize under the loops above it, across schedule states. The IR
 * is immutable, so a realize fixes the block, its bindings, predicate and regions; the loops above
 * are compared field by field (variable, min, extent), because a primitive that rewrites a loop
 * nest copies the loops it passes (new nodes) while keeping their variables and bounds. A fact that
 * depends only on those — worked out without analyzer facts — can then be reused by later
 * primitives for every nest the earlier ones left alone. `K` tells facts of one realize apart (a
 * region, say), by identity.
 */
import type { BlockRealize, For } from "@tessera/ir";

interface MemoEntry<K, V> {
  readonly key: K;
  readonly loops: readonly For[];
  readonly value: V;
}

export class LoopNestMemo<K, V> {
  private readonly byRealize = new WeakMap<BlockRealize, MemoEntry<K, V>[]>();
  /** While false, `get` computes every time (tests compare both ways). */
  enabled = true;

  /** `perRealize` bounds the entries kept for one realize (the oldest goes first). */
  constructor(private readonly perRealize: number) {}

  get(realize: BlockRealize, loops: readonly For[], key: K, compute: () => V): V {
    if (!this.enabled) return compute();
    let entries = this.byRealize.get(realize);
    if (entries !== undefined) {
      for (const e of entries) if (e.key === key && sameLoopDomains(e.loops, loops)) return e.value;
    }
    const value = compute();
    if (entries === undefined) {
      entries = [];
      this.byRealize.set(realize, entries);
    }
    if (entries.length >= this.perRealize) entries.shift();
    entries.push({ key, loops, value });
    return value;
  }

  /** Runs `f` with the memo bypassed. */
  bypassed<T>(f: () => T): T {
    const previous = this.enabled;
    this.enabled = false;
    try {
      return f();
    } finally {
      this.enabled = previous;
    }
  }
}

function sameLoopDomains(a: readonly For[], b: readonly For[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x !== y && (x.loopVar !== y.loopVar || x.min !== y.min || x.extent !== y.extent)) return false;
  }
  return true;
}
