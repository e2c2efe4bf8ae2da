/**
 * Which loops end up unrolled: those marked `unrolled`, and the serial loops that the unroll
 * budget `pragma_auto_unroll_max_step` (set by MetaSchedule's RewriteParallelVectorizeUnroll)
 * unrolls — TVM's UnrollLoop rule as our lowering applies it: bottom-up, a serial loop of
 * constant extent with no remaining loop inside is unrolled when extent × statements of its body
 * fit the budget in effect. Vectorized loops count as one statement; thread loops stay loops.
 */
import { type AttrValue, type For, type Stmt, annotationInt } from "@tessera/ir";

const BUDGET_KEY = "pragma_auto_unroll_max_step";

interface Visit {
  /** Statements the subtree expands to once its unrolled loops are expanded. */
  readonly steps: number;
  /** A loop that stays a loop is inside. */
  readonly hasLoop: boolean;
}

function budgetOf(annotations: Readonly<Record<string, AttrValue>>, outer: number): number {
  const v = annotations[BUDGET_KEY];
  return v === undefined ? outer : (annotationInt(v) ?? outer);
}

/** The loops of `body` that are unrolled (explicitly or by the budget in effect). */
export function unrolledLoops(body: Stmt): Set<For> {
  const unrolled = new Set<For>();
  const visit = (s: Stmt, budget: number): Visit => {
    switch (s.kind) {
      case "BufferStore":
      case "Evaluate":
        return { steps: 1, hasLoop: false };
      case "SeqStmt": {
        let steps = 0;
        let hasLoop = false;
        for (const c of s.seq) {
          const v = visit(c, budget);
          steps += v.steps;
          hasLoop ||= v.hasLoop;
        }
        return { steps, hasLoop };
      }
      case "IfThenElse": {
        const t = visit(s.thenCase, budget);
        const e = s.elseCase === undefined ? { steps: 0, hasLoop: false } : visit(s.elseCase, budget);
        return { steps: t.steps + e.steps, hasLoop: t.hasLoop || e.hasLoop };
      }
      case "BlockRealize": {
        const inner = budgetOf(s.block.annotations, budget);
        const b = visit(s.block.body, inner);
        if (s.block.init === undefined) return b;
        const i = visit(s.block.init, inner);
        return { steps: b.steps + i.steps, hasLoop: b.hasLoop || i.hasLoop };
      }
      case "For": {
        const inner = budgetOf(s.annotations, budget);
        const b = visit(s.body, inner);
        const extent = s.extent.kind === "IntImm" ? s.extent.value : undefined;
        if (s.forKind === "unrolled" || (s.forKind === "serial" && extent !== undefined && !b.hasLoop && extent * b.steps <= inner)) {
          unrolled.add(s);
          return { steps: (extent ?? 1) * b.steps, hasLoop: false };
        }
        if (s.forKind === "vectorized") return { steps: b.steps, hasLoop: b.hasLoop };
        return { steps: b.steps, hasLoop: true };
      }
      case "While":
        return { steps: visit(s.body, budget).steps, hasLoop: true };
      default:
        return "body" in s ? visit(s.body, budget) : { steps: 1, hasLoop: false };
    }
  };
  visit(body, 0);
  return unrolled;
}
