/**
 * Loop kinds: parallel, vectorize, bind (to a GPU thread axis) and unroll. The loop node is kept
 * (same handle, same annotations); only its kind and thread tag change. The first three require
 * that every block iterator bound through the loop be data-parallel — a reduction iterator may
 * only be bound to `threadIdx.*` (cross-thread reduction).
 */
import { type BlockRealize, type For, type ForKind, type Var, usesVar } from "@tessera/ir";
import type { PrimitiveContext } from "../context.js";
import { ScheduleError, ScheduleUsageError } from "../errors.js";
import { type InstructionKind, registerInstruction, renderInput, tsLiteral } from "../instruction.js";
import { findNonCompactBlock } from "../analysis/compact-dataflow.js";
import { replaceStmts } from "../state/replace.js";
import type { LoopEntry } from "../state/tree-index.js";

type ParallelKind = "parallel" | "vectorize" | "bind";

export class WrongBlockIterTypeError extends ScheduleError {
  override name = "WrongBlockIterTypeError";
  constructor(op: ParallelKind, loopVar: Var, block: BlockRealize["block"]) {
    super(
      op,
      op === "bind"
        ? `The "bind" cannot be fulfilled with regard to block ${block.name}. This is because some of its block iter whose block binding contains ${loopVar.name} does not meet any of the conditions:\n1) the block iter is data parallel;\n2) the block iter is a reduction block iter, and the thread axis to be bound is "threadIdx.x/y/z"`
        : `The "${op}" cannot be fulfilled with regard to block ${block.name} because some block iter whose block binding contains the loop var is not a data parallel block iter`,
      [block],
    );
  }
}

export class NotCompactDataFlowError extends ScheduleError {
  override name = "NotCompactDataFlowError";
  constructor(op: ParallelKind, loop: For, block: BlockRealize["block"]) {
    super(
      op,
      `The queried subtree root loop ${loop.loopVar.name} in SRef tree does not have compact dataflow, because its child block ${block.name} on SRef tree is neither a local complete block nor a local reduction block.`,
      [loop, block],
    );
  }
}

/** The thread axis given to `bind` is not one of the GPU launch dimensions TVM knows. */
export class UnknownThreadAxisError extends ScheduleError {
  override name = "UnknownThreadAxisError";
}

const THREAD_AXIS = /^(blockIdx\.[xyz]|threadIdx\.[xyz]|vthread(\.[xyz])?)$/;

/** Every block realize under `loop` (nested ones too, but not blocks inside `T.init()`). */
function blockRealizesUnder(stmt: For["body"], out: BlockRealize[] = []): BlockRealize[] {
  switch (stmt.kind) {
    case "BlockRealize":
      out.push(stmt);
      blockRealizesUnder(stmt.block.body, out);
      return out;
    case "For":
    case "While":
    case "LetStmt":
    case "Allocate":
    case "DeclBuffer":
    case "AttrStmt":
      return blockRealizesUnder(stmt.body, out);
    case "SeqStmt":
      for (const s of stmt.seq) blockRealizesUnder(s, out);
      return out;
    case "IfThenElse":
      blockRealizesUnder(stmt.thenCase, out);
      if (stmt.elseCase) blockRealizesUnder(stmt.elseCase, out);
      return out;
    default:
      return out;
  }
}

function checkParallelizable(op: ParallelKind, loop: For, threadAxis: string | undefined): void {
  const crossThreadOk = threadAxis?.startsWith("threadIdx.") === true;
  for (const realize of blockRealizesUnder(loop.body)) {
    realize.block.iterVars.forEach((iv, k) => {
      if (!usesVar(realize.iterValues[k]!, (v) => v === loop.loopVar)) return;
      if (iv.iterType === "spatial" || (iv.iterType === "reduce" && crossThreadOk)) return;
      throw new WrongBlockIterTypeError(op, loop.loopVar, realize.block);
    });
  }
}

function setKind(ctx: PrimitiveContext, entry: LoopEntry, forKind: ForKind, threadTag: string | undefined): void {
  const next: For = { ...entry.node, forKind, threadTag };
  ctx.commit(replaceStmts(ctx.func.body, new Map([[entry.node, next]]), undefined, ctx.index));
}

function parallelize(ctx: PrimitiveContext, op: ParallelKind, rv: unknown, threadAxis?: string) {
  const entry = ctx.loop(rv, op);
  if (threadAxis !== undefined && !THREAD_AXIS.test(threadAxis)) {
    throw new UnknownThreadAxisError(op, `Unknown thread axis "${threadAxis}": expected blockIdx.x/y/z, threadIdx.x/y/z, vthread or vthread.x/y/z`);
  }
  const bad = findNonCompactBlock(ctx.index, entry);
  if (bad !== undefined) throw new NotCompactDataFlowError(op, entry.node, bad.node);
  checkParallelizable(op, entry.node, threadAxis);
  const kind: ForKind = op === "parallel" ? "parallel" : op === "vectorize" ? "vectorized" : "thread_binding";
  setKind(ctx, entry, kind, threadAxis);
  return { outputs: [] };
}

function loopOnly(name: string, method: string, apply: InstructionKind["apply"]): InstructionKind {
  return registerInstruction({
    name,
    method,
    pure: false,
    singleOutput: false,
    attrNames: [],
    apply,
    formatArgs: (inputs) => renderInput(inputs[0]!),
  });
}

export const PARALLEL = loopOnly("Parallel", "parallel", (ctx, inputs) => parallelize(ctx, "parallel", inputs[0]));
export const VECTORIZE = loopOnly("Vectorize", "vectorize", (ctx, inputs) => parallelize(ctx, "vectorize", inputs[0]));

export const UNROLL = loopOnly("Unroll", "unroll", (ctx, inputs) => {
  // No checks: unrolling never changes what the loop computes. A thread binding is dropped.
  setKind(ctx, ctx.loop(inputs[0], "unroll"), "unrolled", undefined);
  return { outputs: [] };
});

export const BIND: InstructionKind = registerInstruction({
  name: "Bind",
  method: "bind",
  pure: false,
  singleOutput: false,
  attrNames: ["thread_axis"],
  apply(ctx, inputs, attrs) {
    const axis = attrs[0];
    if (typeof axis !== "string") throw new ScheduleUsageError("bind", `the thread axis must be a string, got ${String(axis)}`);
    return parallelize(ctx, "bind", inputs[0], axis);
  },
  formatArgs: (inputs, attrs) => `${renderInput(inputs[0]!)}, ${tsLiteral(attrs[0])}`,
});
