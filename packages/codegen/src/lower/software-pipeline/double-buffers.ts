/**
 * TVM's `double_buffer_scope` block annotation: the value is the index of one of the block's write
 * regions, whose buffer then keeps two versions in a software pipeline even where one would do
 * (more storage, fewer barriers between a reader and the next iteration's writer). The innermost
 * pipelined loop around the block honours it and drops it (`withoutDoubleBufferScopes`): an outer
 * pipeline that opens the inner one's block (body.ts) versions its buffers only as its own stages
 * need (not TVM's: TVM does not open inner pipelines' blocks, so their buffers are never an outer
 * pipeline's).
 */
import { type Block, type For, IRMutator, type Stmt, type Var, annotationInt, forEachStmt } from "@tessera/ir";
import { pipelineError } from "./annotations.js";

export const DOUBLE_BUFFER_SCOPE = "double_buffer_scope";

/** The data variables of the buffers that blocks inside `loop` ask to double-buffer. */
export function doubleBuffered(loop: For): Set<Var> {
  const out = new Set<Var>();
  forEachStmt(loop.body, (s) => {
    if (s.kind !== "BlockRealize") return true;
    const value = s.block.annotations[DOUBLE_BUFFER_SCOPE];
    if (value === undefined) return true;
    const index = annotationInt(value);
    const write = index === undefined ? undefined : s.block.writes[index];
    if (write === undefined) {
      throw pipelineError(
        loop,
        `has block "${s.block.name}" with ${DOUBLE_BUFFER_SCOPE} = ${String(index ?? "a non-integer")}, ` +
          `which is not the index of one of its ${s.block.writes.length} write regions`,
      );
    }
    out.add(write.buffer.data);
    return true;
  });
  return out;
}

class DoubleBufferScopeRemover extends IRMutator {
  override visitBlock(b: Block): Block {
    const visited = super.visitBlock(b);
    if (visited.annotations[DOUBLE_BUFFER_SCOPE] === undefined) return visited;
    const { [DOUBLE_BUFFER_SCOPE]: _, ...annotations } = visited.annotations;
    return { ...visited, annotations };
  }
}

/** `s` with the blocks' `double_buffer_scope` annotations dropped (honoured by the pipeline that emitted it). */
export function withoutDoubleBufferScopes(s: Stmt): Stmt {
  return new DoubleBufferScopeRemover().visitStmt(s);
}
