import { type Buffer, declBuffer } from "../../src/buffer.js";
import type { DType } from "../../src/dtype.js";
import { type PrimExpr, type Var, variable } from "../../src/expr.js";
import { type PrimFunc, primFunc } from "../../src/func.js";
import { type Stmt, block, blockRealize, bufferStore } from "../../src/stmt.js";
import { runPrimFunc } from "../../src/exec/index.js";
import { typedArrayFor } from "../../src/exec/index.js";

/** A PrimFunc whose parameters are `buffers` (in order) followed by the scalar vars `scalars`. */
export function funcOf(buffers: readonly Buffer[], body: Stmt, scalars: readonly Var[] = [], name = "f"): PrimFunc {
  const handles = buffers.map((b) => variable(`${b.name}_handle`, "handle"));
  const map = new Map(handles.map((h, i) => [h, buffers[i]!] as const));
  return primFunc([...handles, ...scalars], map, body, { global_symbol: name });
}

/** Wraps `body` in a root block, as the parser does for functions with blocks. */
export function rooted(body: Stmt): Stmt {
  return blockRealize([], true, block({ name: "root", body }));
}

/** Evaluates a closed expression by storing it into a one-element buffer of its dtype. */
export function evalExpr(e: PrimExpr): number {
  const out = declBuffer("Out", [1], e.dtype as DType);
  const arr = typedArrayFor(e.dtype, 1);
  runPrimFunc(funcOf([out], bufferStore(out, e, [0])), [arr]);
  return arr[0]!;
}
