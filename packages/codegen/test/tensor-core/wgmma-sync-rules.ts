/**
 * What the injectWgmmaSync tests share: the PTX rules of asynchronous wgmma groups checked over an
 * executed trace of a test kernel, and reading or rewriting the kernel's wait_group counts.
 */
import { type Stmt, evalIntExpr, evaluate, intImm, seq } from "@tessera/ir";
import { WGMMA_WAIT_GROUP } from "../../src/index.js";

const isWait = (s: Stmt): s is Stmt & { kind: "Evaluate" } => s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === WGMMA_WAIT_GROUP;

/** The pending count of every `wgmma.wait_group` in `s`, in program order (constant counts only). */
export function waitCounts(s: Stmt): number[] {
  const counts: number[] = [];
  const visit = (x: Stmt): void => {
    if (x.kind === "SeqStmt") x.seq.forEach(visit);
    else if ("body" in x) visit((x as { body: Stmt }).body);
    else if (isWait(x) && x.value.kind === "Call") {
      const pending = evalIntExpr(x.value.args[0]!, new Map());
      if (pending === undefined) throw new Error("waitCounts: a wait_group whose count is not a constant");
      counts.push(pending);
    }
  };
  visit(s);
  return counts;
}

/** `s` with every wait's pending count replaced by `pending` (through sequences, loops and allocations). */
export function withWaits(s: Stmt, pending: number): Stmt {
  switch (s.kind) {
    case "SeqStmt":
      return seq(s.seq.map((x) => withWaits(x, pending)));
    case "For":
    case "Allocate":
      return { ...s, body: withWaits(s.body, pending) };
    case "Evaluate":
      return isWait(s) && s.value.kind === "Call" ? evaluate({ ...s.value, args: [intImm(pending), ...s.value.args.slice(1)] }) : s;
    default:
      return s;
  }
}

/** Elements `[first, last]` of one buffer the test watches (shared memory, or a fragment's registers). */
export type Span = readonly [number, number];

/** One executed statement of a test kernel, as the wgmma rules see it. */
export type WgmmaEvent =
  | { readonly kind: "wgmma"; readonly reads: readonly Span[] }
  | { readonly kind: "write"; readonly at: Span }
  | { readonly kind: "wait"; readonly pending: number }
  | { readonly kind: "fence" | "barrier" | "acc" | "commit" | "other" };

/**
 * The first rule of PTX's wgmma groups that `events` break, or undefined: a fence since the last
 * other instruction before each wgmma; no write of what a group in flight (committed, or the open
 * one) reads; no accumulator access while any wgmma is in flight.
 */
export function brokenWgmmaRule(events: readonly WgmmaEvent[]): string | undefined {
  /** The committed groups in flight (oldest first), each the spans its wgmmas read; then the open group. */
  let groups: Span[][] = [];
  let open: Span[] = [];
  let fenced = false;
  for (const [i, e] of events.entries()) {
    switch (e.kind) {
      case "fence":
        fenced = true;
        break;
      case "wgmma":
        if (!fenced) return `event ${i}: a wgmma without a fence since the last other instruction`;
        open.push(...e.reads);
        break;
      case "commit":
        groups.push(open);
        open = [];
        break;
      case "wait":
        groups = e.pending === 0 ? [] : groups.slice(-e.pending);
        break;
      case "write": {
        const [lo, hi] = e.at;
        for (const g of [...groups, open])
          if (g.some(([a, b]) => lo <= b && a <= hi)) return `event ${i}: a write of [${lo}, ${hi}] while a wgmma group in flight reads it`;
        fenced = false;
        break;
      }
      default:
        if (e.kind === "acc" && (groups.length > 0 || open.length > 0)) return `event ${i}: an accumulator access while a wgmma is in flight`;
        fenced = false;
    }
  }
  return undefined;
}
