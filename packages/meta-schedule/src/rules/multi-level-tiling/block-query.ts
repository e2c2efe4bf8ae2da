/**
 * Read-only questions about blocks that the schedule rules and postprocessors ask of the current
 * function: its blocks in post order, a block's realize (iterator bindings), the variables of an
 * expression, and how a block indexes a buffer it reads. (Spatial blocks, trivial bindings and
 * NeedsMultiLevelTiling are schedule-utils' `block-info`.)
 */
import { type Block, type BlockRealize, type Buffer, type PrimExpr, type PrimFunc, type Stmt, type Var, forEachExpr, forEachStmt } from "@tessera/ir";

/** The names of the function's blocks, children before their parent (TVM's BlockCollector order). */
export function blockNamesPostOrder(func: PrimFunc): string[] {
  const names: string[] = [];
  const visit = (s: Stmt): void => {
    forEachStmt(s, (node) => {
      if (node.kind !== "BlockRealize") return true;
      // Visit the block's own statements first, then name it: post order.
      if (node.block.init !== undefined) visit(node.block.init);
      visit(node.block.body);
      names.push(node.block.name);
      return false;
    });
  };
  visit(func.body);
  return names;
}

/** The names of the blocks nested inside a block that carries annotation `key` (not those blocks themselves). */
export function blockNamesInside(func: PrimFunc, key: string): Set<string> {
  const inside = new Set<string>();
  const visit = (s: Stmt, under: boolean): void => {
    forEachStmt(s, (node) => {
      if (node.kind !== "BlockRealize") return true;
      if (under) inside.add(node.block.name);
      const next = under || node.block.annotations[key] !== undefined;
      if (node.block.init !== undefined) visit(node.block.init, next);
      visit(node.block.body, next);
      return false;
    });
  };
  visit(func.body, false);
  return inside;
}

/** The realize of the block named `name`, or undefined. */
export function blockRealizeOf(func: PrimFunc, name: string): BlockRealize | undefined {
  let found: BlockRealize | undefined;
  forEachStmt(func.body, (node) => {
    if (found !== undefined) return false;
    if (node.kind === "BlockRealize" && node.block.name === name) {
      found = node;
      return false;
    }
    return true;
  });
  return found;
}

/** The variables an expression mentions. */
export function varsOf(e: PrimExpr): Set<Var> {
  const out = new Set<Var>();
  forEachExpr(e, (x) => {
    if (x.kind === "Var") out.add(x);
  });
  return out;
}

/** The indices of the first load of `buffer` in the block's body (in terms of the block's iterators). */
export function loadIndicesOf(block: Block, buffer: Buffer): readonly PrimExpr[] | undefined {
  let indices: readonly PrimExpr[] | undefined;
  forEachExpr(block.body, (e) => {
    if (indices === undefined && e.kind === "BufferLoad" && e.buffer === buffer) indices = e.indices;
  });
  return indices;
}
