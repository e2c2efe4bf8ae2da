/**
 * The statements a pipelined loop reorders and the buffers allocated for its body, as TVM finds
 * them: the loop body, or the body of the opaque block around it (whose allocations become the
 * pipeline's), with nested grouping blocks (opaque, unpredicated, a sequence as body) opened up.
 */
import type { Block, BlockRealize, Buffer, For, Stmt } from "@tessera/ir";
import { isConstTrue } from "../util/conditions.js";
import { pipelineError } from "./annotations.js";

export interface PipelineBody {
  /** The statements in their original order. */
  readonly stmts: readonly Stmt[];
  /** Buffers allocated inside the loop body, around the statements: these may get versions. */
  readonly allocs: readonly Buffer[];
  /** How many nested grouping blocks were opened up (an inner pipeline's block is one). */
  readonly openedBlocks: number;
}

export function pipelineBody(loop: For): PipelineBody {
  const allocs: Buffer[] = [];
  let body = loop.body;
  if (body.kind === "BlockRealize") {
    const problem = groupingProblem(body);
    if (problem !== undefined) {
      throw pipelineError(loop, `cannot be pipelined: its body is block "${body.block.name}", which ${problem}`);
    }
    allocs.push(...body.block.allocBuffers);
    body = body.block.body;
  }
  const stmts: Stmt[] = [];
  let openedBlocks = 0;
  for (const child of body.kind === "SeqStmt" ? body.seq : [body]) {
    if (child.kind === "BlockRealize" && groupingProblem(child) === undefined && child.block.body.kind === "SeqStmt") {
      allocs.push(...child.block.allocBuffers);
      stmts.push(...child.block.body.seq);
      openedBlocks++;
    } else {
      stmts.push(child);
    }
  }
  return { stmts, allocs, openedBlocks };
}

/** Why a block is more than a grouping of statements with allocations, if it is. */
function groupingProblem(realize: BlockRealize): string | undefined {
  const blk: Block = realize.block;
  if (blk.iterVars.length > 0) return "still has iterators (pipelining runs after convertBlocksToOpaque)";
  if (!isConstTrue(realize.predicate)) return "has a predicate; pipelining would run the predicate's statements at other iterations";
  if (blk.init !== undefined) return "has an init statement";
  if (blk.matchBuffers.length > 0) return "has match_buffer views";
  return undefined;
}
