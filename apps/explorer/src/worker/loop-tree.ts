/** The loop nest of a function as plain data: loops with extents and thread bindings, and blocks. */
import { type PrimFunc, type Stmt, printExpr } from "@tessera/ir";
import type { LoopTreeNode } from "../protocol.js";

function children(s: Stmt): LoopTreeNode[] {
  switch (s.kind) {
    case "For":
      return [
        {
          kind: "loop",
          name: s.loopVar.name,
          extent: printExpr(s.extent),
          forKind: s.forKind,
          binding: s.threadTag,
          children: children(s.body),
        },
      ];
    case "BlockRealize":
      return [{ kind: "block", name: s.block.name, children: children(s.block.body) }];
    case "SeqStmt":
      return s.seq.flatMap(children);
    case "IfThenElse":
      return [...children(s.thenCase), ...(s.elseCase === undefined ? [] : children(s.elseCase))];
    case "While":
    case "LetStmt":
    case "Allocate":
    case "DeclBuffer":
    case "AttrStmt":
      return children(s.body);
    case "BufferStore":
    case "Evaluate":
      return [];
  }
}

/** The tree under the function's root block (TVMScript's `T.block("root")`). */
export function loopTree(func: PrimFunc): LoopTreeNode {
  const top = children(func.body);
  const only = top[0];
  if (top.length === 1 && only !== undefined && only.kind === "block") return only;
  return { kind: "block", name: "root", children: top };
}
