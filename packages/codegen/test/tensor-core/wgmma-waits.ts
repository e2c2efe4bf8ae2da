/** The wgmma wait_group statements of a test kernel: read their pending counts, or rewrite them. */
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
