/**
 * Pass 11, `unrollLoop`: a loop of kind `unrolled` with constant bounds is expanded — its body
 * repeated once per iteration with the loop variable replaced by the constant — when the expansion
 * stays small (extent × statements of the body ≤ `MAX_UNROLLED_STATEMENTS`). Larger loops, loops
 * of symbolic extent, and bodies that declare storage or variables (repeating those would declare
 * them twice in one C scope) stay loops of kind `unrolled`, printed with `#pragma unroll`.
 */
import {
  type BufferLoad,
  type For,
  IRMutator,
  type PrimExpr,
  type Stmt,
  Substituter,
  intImm,
  seq,
  simplify,
  withBody,
} from "@tessera/ir";
import type { Pass } from "../pass.js";

export const MAX_UNROLLED_STATEMENTS = 512;

export const unrollLoopPass: Pass = {
  name: "unrollLoop",
  run(func) {
    const body = new LoopUnroller().visitStmt(func.body);
    return body === func.body ? func : withBody(func, body);
  },
};

class LoopUnroller extends IRMutator {
  override visitFor(s: For): Stmt {
    const loop = super.visitFor(s);
    if (loop.kind !== "For" || loop.forKind !== "unrolled") return loop;
    if (loop.min.kind !== "IntImm" || loop.extent.kind !== "IntImm") return loop;
    const size = statementCount(loop.body);
    if (size === undefined || loop.extent.value * size > MAX_UNROLLED_STATEMENTS) return loop;
    const copies: Stmt[] = [];
    for (let i = 0; i < loop.extent.value; i++) {
      const value = intImm(loop.min.value + i, loop.loopVar.dtype);
      copies.push(new IterationInstance(loop, value).visitStmt(loop.body));
    }
    return seq(copies);
  }
}

/**
 * Statements an expansion of `body` produces (inner loops count their extent times), or
 * undefined when the body cannot be repeated (it declares storage or variables, or has a loop of
 * symbolic extent).
 */
function statementCount(body: Stmt): number | undefined {
  switch (body.kind) {
    case "BufferStore":
    case "Evaluate":
      return 1;
    case "SeqStmt": {
      let n = 0;
      for (const s of body.seq) {
        const k = statementCount(s);
        if (k === undefined) return undefined;
        n += k;
      }
      return n;
    }
    case "IfThenElse": {
      const t = statementCount(body.thenCase);
      const e = body.elseCase === undefined ? 0 : statementCount(body.elseCase);
      return t === undefined || e === undefined ? undefined : 1 + t + e;
    }
    case "For": {
      const inner = statementCount(body.body);
      return body.extent.kind !== "IntImm" || inner === undefined ? undefined : body.extent.value * inner;
    }
    default:
      return undefined;
  }
}

/** The loop body at one iteration: the variable replaced, index arithmetic folded. */
class IterationInstance extends Substituter {
  constructor(loop: For, value: PrimExpr) {
    super((v) => (v === loop.loopVar ? value : undefined));
  }

  override visitBufferLoad(e: BufferLoad): PrimExpr {
    const load = super.visitBufferLoad(e);
    return load === e || load.kind !== "BufferLoad" ? load : { ...load, indices: load.indices.map((i) => simplify(i)) };
  }

  override visitStmt(s: Stmt): Stmt {
    const out = super.visitStmt(s);
    if (out === s) return s;
    if (out.kind === "BufferStore") return { ...out, indices: out.indices.map((i) => simplify(i)) };
    if (out.kind === "IfThenElse") return { ...out, condition: simplify(out.condition) };
    return out;
  }
}
