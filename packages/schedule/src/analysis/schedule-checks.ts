/**
 * The precondition checks TVM's primitives share (`analysis.cc`): the scope root with the full
 * stage-pipeline requirement, complete / reduction / output block checks, and the errors they
 * raise (RootBlockError, NotStagePipelineError and OutputBlockError are shared with compute-at).
 * Messages follow TVM's detail templates, with `{0}` written as the node's quoted name.
 */
import { type Block, type For, forEachExpr, forEachStmt } from "@tessera/ir";
import { ScheduleError } from "../errors.js";
import type { BlockEntry, TreeIndex } from "../state/tree-index.js";
import { hasAffineBinding, isDominant } from "./block-properties.js";
import type { BlockScope } from "./scope.js";
import { NotStagePipelineError, getScopeRoot } from "./scope-root.js";
import { isStagePipeline } from "./stage-pipeline.js";
import { OutputBlockError } from "../primitives/compute-at/errors.js";

/** How a block or loop is named inside a message (TVM prints `tir.Block#0` and annotates the IR). */
export function nameOf(node: Block | For): string {
  return node.kind === "Block" ? `"${node.name}"` : `"${node.loopVar.name}"`;
}

const COMPLETE_BLOCK_DEFINITION = `Definition of a complete block:
1) All block vars are data parallel
2) Dominant: the block is the only writer of its output, dominating the reader of its output buffers
3) No overlap between the buffers the block reads and writes`;

const REDUCTION_BLOCK_DEFINITION = `Definition of a reduction block:
1) The block has the \`init\` statement
2) All the block bindings are quasi-affine expressions
3) All block vars are either data parallel block vars or reduction block vars
4) Dominant: the block is the only writer of its output, dominating the reader of its output buffers
5) The reduction block vars are not used to index the output buffers`;

export class IncompleteBlockError extends ScheduleError {
  override name = "IncompleteBlockError";
  constructor(
    primitive: string,
    blk: Block,
    readonly violatedCondition: number,
  ) {
    super(primitive, `The block ${nameOf(blk)} is not a complete block - it violates condition #${violatedCondition}.\n${COMPLETE_BLOCK_DEFINITION}`, [blk]);
  }
}

export class NotReductionBlockError extends ScheduleError {
  override name = "NotReductionBlockError";
  constructor(
    primitive: string,
    blk: Block,
    readonly violatedCondition: number,
  ) {
    super(primitive, `The block ${nameOf(blk)} is not a reduction block - it violates condition #${violatedCondition}.\n${REDUCTION_BLOCK_DEFINITION}`, [blk]);
  }
}

export class NonSingleChildBlockError extends ScheduleError {
  override name = "NonSingleChildBlockError";
  constructor(primitive: string, node: Block | For) {
    const what = node.kind === "Block" ? "block" : "loop";
    super(primitive, `The ${what} ${nameOf(node)} is required to have only one child block`, [node]);
  }
}

/**
 * The scope a block belongs to (TVM's \`GetScopeRoot\`): the root block has none (RootBlockError);
 * with \`requireStagePipeline\` the scope must be a stage pipeline, region cover included.
 */
export function scopeRootOf(index: TreeIndex, blk: BlockEntry, primitive: string, requireStagePipeline: boolean): BlockScope {
  const { root, scope } = getScopeRoot(index, blk, primitive, requireStagePipeline);
  if (requireStagePipeline && !isStagePipeline(scope)) throw new NotStagePipelineError(primitive, root.node);
  return scope;
}

/** 0 when complete, else the first violated condition of the definition above. */
export function completeBlockErrorCode(scope: BlockScope, blk: BlockEntry): number {
  const b = blk.node;
  if (!b.iterVars.every((iv) => iv.iterType === "spatial")) return 1;
  if (!isDominant(scope, blk)) return 2;
  const written = new Set(b.writes.map((w) => w.buffer));
  return b.reads.some((r) => written.has(r.buffer)) ? 3 : 0;
}

/** 0 when a reduction block, else the first violated condition of the definition above. */
export function reductionBlockErrorCode(index: TreeIndex, scope: BlockScope, blk: BlockEntry): number {
  const b = blk.node;
  if (b.init === undefined) return 1;
  if (!hasAffineBinding(index, blk)) return 2;
  if (!b.iterVars.every((iv) => iv.iterType === "spatial" || iv.iterType === "reduce")) return 3;
  if (!isDominant(scope, blk)) return 4;
  return reduceItersIndexOutput(b) ? 5 : 0;
}

export function checkCompleteBlock(primitive: string, scope: BlockScope, blk: BlockEntry): void {
  const code = completeBlockErrorCode(scope, blk);
  if (code !== 0) throw new IncompleteBlockError(primitive, blk.node, code);
}

export function checkReductionBlock(primitive: string, index: TreeIndex, scope: BlockScope, blk: BlockEntry): void {
  const code = reductionBlockErrorCode(index, scope, blk);
  if (code !== 0) throw new NotReductionBlockError(primitive, blk.node, code);
}

/** An output block writes a buffer that the scope root does not allocate. */
export function checkNotOutputBlock(primitive: string, scope: BlockScope, blk: BlockEntry): void {
  const allocated = new Set(scope.root?.node.allocBuffers ?? []);
  if (blk.node.writes.some((w) => !allocated.has(w.buffer))) throw new OutputBlockError(primitive, blk.node);
}

/** Does any store in the block index a written buffer with a reduce iterator? */
function reduceItersIndexOutput(b: Block): boolean {
  const reduceVars = new Set(b.iterVars.filter((iv) => iv.iterType === "reduce").map((iv) => iv.var));
  const written = new Set(b.writes.map((w) => w.buffer));
  let found = false;
  forEachStmt(b.body, (s) => {
    if (s.kind !== "BufferStore" || !written.has(s.buffer)) return;
    for (const i of s.indices) forEachExpr(i, (e) => void (e.kind === "Var" && reduceVars.has(e) && (found = true)));
  });
  return found;
}
