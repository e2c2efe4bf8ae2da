/**
 * The two TVMScript dialects the parser reads. They differ in what `T.alloc_buffer` means:
 * - "course" (TVM ≈0.13–0.20, what the course's notebooks and our printer write): `T.block`, and
 *   `T.alloc_buffer` is a block allocation (of the enclosing block, or of the implicit root block);
 * - "tvm" (today's TVM): `T.sblock`, `T.sblock_alloc_buffer` is the block allocation and
 *   `T.alloc_buffer` a flat allocation scoping the statements after it.
 * `T.sblock*` spellings are read in both. "auto" picks "tvm" for a function whose decorator has
 * `s_tir=` or whose body uses a `T.sblock*` spelling, else "course".
 */
import type { PyStmt } from "./ast.js";

export type TVMScriptDialect = "course" | "tvm";
export type DialectOption = TVMScriptDialect | "auto";

type FunctionDef = Extract<PyStmt, { kind: "FunctionDef" }>;

const TODAYS_SPELLINGS = new Set(["sblock", "sblock_alloc_buffer", "sblock_attr"]);

export function resolveDialect(def: FunctionDef, option: DialectOption): TVMScriptDialect {
  if (option !== "auto") return option;
  const marked = def.decorators.some((d) => d.kind === "Call" && d.keywords.some((k) => k.name === "s_tir"));
  return marked || usesTodaysSpelling(def.body) ? "tvm" : "course";
}

/** Whether any `T.sblock`, `T.sblock_alloc_buffer` or `T.sblock_attr` appears (an iterative walk of the tree). */
function usesTodaysSpelling(body: readonly PyStmt[]): boolean {
  const stack: unknown[] = [...body];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]));
      continue;
    }
    const n = node as { kind?: unknown; attr?: unknown; value?: { kind?: unknown; id?: unknown } };
    if (n.kind === "Attribute" && n.value?.kind === "Name" && n.value.id === "T" && TODAYS_SPELLINGS.has(n.attr as string)) return true;
    for (const [key, child] of Object.entries(node)) if (key !== "pos" && key !== "opPos") stack.push(child);
  }
  return false;
}
