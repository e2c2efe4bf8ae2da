/**
 * Statements and blocks → JS statements. Thread-bound, parallel, vectorized and unrolled loops
 * all run as ordinary serial loops.
 */
import type { Buffer } from "../buffer.js";
import { lanesOf } from "../dtype.js";
import type { PrimExpr } from "../expr.js";
import type { AttrStmt, Block, BlockRealize, BufferStore, For, Stmt } from "../stmt.js";
import { declareBufferLayout, declareMatchBuffer, emitElementAccess, isAtom, storageSize } from "./buffer-layout.js";
import type { EmitContext } from "./context.js";
import { describeExpr } from "../printer/expr-text.js";
import { ExecutionError } from "./errors.js";
import { indexRange } from "./index-ranges.js";
import { emitExpr, emitValue, refuseScalable } from "./emit-expr.js";
import { typedArrayConstructorFor } from "./typed-arrays.js";
import { ASYNC_COMMIT_QUEUE_SCOPE, ASYNC_WAIT_QUEUE_SCOPE, asAsyncCopy, asyncWaitOf } from "../async-copy.js";
import { emitAsyncCommit, emitAsyncCopy, emitAsyncWait } from "./emit-async-copy.js";

export function emitStmt(ctx: EmitContext, s: Stmt): void {
  switch (s.kind) {
    case "BufferStore":
      return emitStore(ctx, s);
    case "SeqStmt":
      for (const child of s.seq) emitStmt(ctx, child);
      return;
    case "IfThenElse": {
      const elseCase = s.elseCase;
      ctx.line(`if (${emitExpr(ctx, s.condition)}) {`);
      ctx.indented(() => emitStmt(ctx, s.thenCase));
      if (elseCase) {
        ctx.line("} else {");
        ctx.indented(() => emitStmt(ctx, elseCase));
      }
      ctx.line("}");
      return;
    }
    case "For":
      return emitFor(ctx, s);
    case "While":
      // The condition is evaluated before each iteration, as TVM's While.
      ctx.nested(`while (${emitExpr(ctx, s.condition)}) {`, () => emitLoopBody(ctx, s.body));
      return;
    case "Evaluate":
      return emitEvaluate(ctx, s.value);
    case "LetStmt": {
      const value = emitValue(ctx, s.value);
      const { name, unbind } = ctx.bindVar(s.variable, undefined, indexRange(s.value, ctx.rangeOf));
      ctx.line(`const ${name} = ${value};`);
      emitStmt(ctx, s.body);
      unbind();
      return;
    }
    case "Allocate":
      allocateBuffer(ctx, s.buffer, "T.allocate");
      emitStmt(ctx, s.body);
      return;
    case "DeclBuffer": {
      const array = ctx.arrayOf(s.buffer.data);
      if (array === undefined) {
        throw new ExecutionError(`T.decl_buffer ${s.buffer.name}${ctx.where}: its data variable ${s.buffer.data.name} is not allocated`);
      }
      declareBufferLayout(ctx, s.buffer, array);
      emitStmt(ctx, s.body);
      return;
    }
    case "AttrStmt":
      return emitAttr(ctx, s);
    case "BlockRealize":
      return emitBlockRealize(ctx, s);
  }
}

function emitStore(ctx: EmitContext, s: BufferStore): void {
  refuseScalable(ctx, s.value);
  const lanes = lanesOf(s.value.dtype);
  const access = (lane?: number): string => {
    const indexJs = s.indices.map((i) => emitExpr(ctx, i, lanesOf(i.dtype) > 1 ? lane : undefined));
    return emitElementAccess(ctx, s.buffer, s.indices, indexJs, "store", lane);
  };
  if (lanes === 1) {
    ctx.line(`${access()} = ${emitExpr(ctx, s.value)};`);
    return;
  }
  // All lanes are computed before any is stored, as a vector store does.
  ctx.nested("{", () => {
    const values = Array.from({ length: lanes }, (_, k) => {
      const v = ctx.names.internal(`lane${k}`);
      ctx.line(`const ${v} = ${emitExpr(ctx, s.value, k)};`);
      return v;
    });
    const predicate = s.predicate;
    values.forEach((v, k) => {
      // A masked-off lane writes nothing (its index is not even checked).
      if (predicate === undefined) ctx.line(`${access(k)} = ${v};`);
      else ctx.nested(`if (${emitExpr(ctx, predicate, k)}) {`, () => ctx.line(`${access(k)} = ${v};`));
    });
  });
}

function emitFor(ctx: EmitContext, s: For): void {
  const hook = ctx.hooks.loop;
  if (hook === undefined) emitForInPlace(ctx, s);
  else hook(ctx, s, () => emitForInPlace(ctx, s));
}

function emitForInPlace(ctx: EmitContext, s: For): void {
  const min = emitExpr(ctx, s.min);
  const extent = emitExpr(ctx, s.extent);
  const minRange = indexRange(s.min, ctx.rangeOf);
  const extentRange = indexRange(s.extent, ctx.rangeOf);
  const range = minRange && extentRange && extentRange.lo >= 1 ? { lo: minRange.lo, hi: minRange.hi + extentRange.hi - 1 } : undefined;
  const { name, unbind } = ctx.bindVar(s.loopVar, undefined, range);
  let end: string;
  let init = `let ${name} = ${min}`;
  if (/^\d+$/.test(min) && /^\d+$/.test(extent)) end = String(Number(min) + Number(extent));
  else if (min === "0" && isAtom(extent)) end = extent;
  else {
    // Evaluated once, like TVM's loop extent.
    end = ctx.names.fresh(`${name}_end`);
    init += `, ${end} = ${min} + ${extent}`;
  }
  if (s.forKind !== "serial") {
    ctx.line(`// ${s.forKind}${s.threadTag === undefined ? "" : ` ${s.threadTag}`}: run as a serial loop`);
  }
  let next = `${name}++`;
  if (s.step !== undefined) {
    // Evaluated once, as the extent; a step that is not positive would never end the loop.
    const step = ctx.names.fresh(`${name}_step`);
    ctx.line(`const ${step} = ${emitExpr(ctx, s.step)};`);
    ctx.line(`if (!(${step} > 0)) $assertFailed(${JSON.stringify(`loop ${s.loopVar.name}${ctx.where}: its step must be positive`)});`);
    next = `${name} += ${step}`;
  }
  ctx.nested(`for (${init}; ${name} < ${end}; ${next}) {`, () => emitLoopBody(ctx, s.body));
  unbind();
}

function emitLoopBody(ctx: EmitContext, body: Stmt): void {
  ctx.loopNesting++;
  try {
    emitStmt(ctx, body);
  } finally {
    ctx.loopNesting--;
  }
}

/** `T.break_loop()` / `T.continue_loop()`: they leave or restart the innermost loop, as in TVM. */
function emitLoopJump(ctx: EmitContext, op: "break_loop" | "continue_loop"): void {
  if (ctx.loopNesting === 0) throw new ExecutionError(`T.${op}()${ctx.where} is not inside a loop`);
  ctx.line(op === "break_loop" ? "break;" : "continue;");
}

/**
 * Attributes only annotate their body, except a launch dimension of lowered code
 * (`thread_extent` / `virtual_thread` on a thread variable), which runs as a serial loop over it.
 */
function emitAttr(ctx: EmitContext, s: AttrStmt): void {
  const comment = `// T.attr(${s.node?.name ?? "None"}, ${JSON.stringify(s.key)}, ${describeExpr(s.value)})`;
  if (s.key === ASYNC_COMMIT_QUEUE_SCOPE) {
    ctx.line(comment);
    emitStmt(ctx, s.body);
    return emitAsyncCommit(ctx);
  }
  if (s.key === ASYNC_WAIT_QUEUE_SCOPE) {
    ctx.line(comment);
    const wait = asyncWaitOf(s);
    emitAsyncWait(ctx, wait.inflight);
    return emitStmt(ctx, wait.body);
  }
  const node = s.node;
  const launches = s.key === "thread_extent" || s.key === "virtual_thread";
  if (!launches || node === undefined || ctx.isBound(node)) {
    ctx.line(comment);
    emitStmt(ctx, s.body);
    return;
  }
  ctx.line(`${comment}: run as a serial loop`);
  const extent = emitExpr(ctx, s.value);
  const extentRange = indexRange(s.value, ctx.rangeOf);
  const { name, unbind } = ctx.bindVar(node, undefined, extentRange && { lo: 0, hi: extentRange.hi - 1 });
  ctx.nested(`for (let ${name} = 0; ${name} < ${extent}; ${name}++) {`, () => emitStmt(ctx, s.body));
  unbind();
}

function emitEvaluate(ctx: EmitContext, value: PrimExpr): void {
  if (value.kind === "Call" && value.op === "tvm_storage_sync") {
    if (ctx.hooks.barrier !== undefined) return ctx.hooks.barrier(ctx, value);
    ctx.line(`// ${describeExpr(value)}: no-op, threads run one after another`);
    return;
  }
  if (value.kind === "IntImm" || value.kind === "FloatImm" || value.kind === "StringImm") return;
  if (value.kind === "Call" && (value.op === "break_loop" || value.op === "continue_loop") && value.args.length === 0) {
    return emitLoopJump(ctx, value.op);
  }
  const copy = asAsyncCopy(value);
  if (copy !== undefined) return emitAsyncCopy(ctx, copy);
  if (value.kind === "Call" && ctx.hooks.intrinsic?.(ctx, value) === true) return;
  ctx.line(`${emitValue(ctx, value)};`);
}

/**
 * A fresh zeroed array for `buffer` (its own storage), registered with its layout. The
 * `allocation` hook may supply the array instead.
 */
function allocateBuffer(ctx: EmitContext, buffer: Buffer, what: "T.allocate" | "T.alloc_buffer"): void {
  const Ctor = typedArrayConstructorFor(buffer.dtype);
  const array = ctx.names.fresh(buffer.name);
  ctx.setArray(buffer.data, array, buffer);
  const layout = declareBufferLayout(ctx, buffer, array);
  const size = storageSize(layout, buffer);
  const supplied = ctx.hooks.allocation?.(ctx, buffer, size, what);
  ctx.line(
    `const ${array} = ${supplied ?? `new ${Ctor.name}(${size})`}; // ${what} ${buffer.name}: ${buffer.dtype}[${buffer.shape.map(describeExpr).join(", ")}]`,
  );
}

function emitBlockRealize(ctx: EmitContext, realize: BlockRealize): void {
  const blk = realize.block;
  const outerWhere = ctx.where;
  ctx.where = ` in block "${blk.name}"`;
  ctx.line(`// block ${blk.name}`);
  const unbinders: (() => void)[] = [];
  blk.iterVars.forEach((iv, k) => {
    const binding = realize.iterValues[k]!;
    const value = emitExpr(ctx, binding);
    const { name, unbind } = ctx.bindVar(iv.var, undefined, indexRange(binding, ctx.rangeOf));
    ctx.line(`const ${name} = ${value};`);
    unbinders.push(unbind);
  });
  const pred = realize.predicate;
  if (pred.kind === "IntImm" && pred.value === 1) emitBlockBody(ctx, blk, unbinders);
  else ctx.nested(`if (${emitExpr(ctx, pred)}) {`, () => emitBlockBody(ctx, blk, unbinders));
  for (const unbind of unbinders.reverse()) unbind();
  ctx.where = outerWhere;
}

/** Allocations are fresh per block instance; the root block runs once, so its allocations are too. */
function emitBlockBody(ctx: EmitContext, blk: Block, unbinders: (() => void)[]): void {
  for (const buffer of blk.allocBuffers) allocateBuffer(ctx, buffer, "T.alloc_buffer");
  for (const match of blk.matchBuffers) unbinders.push(...declareMatchBuffer(ctx, match));
  const init = blk.init;
  if (init !== undefined) {
    const atMin = blk.iterVars.filter((iv) => iv.iterType === "reduce").map((iv) => `${ctx.varName(iv.var)} === ${emitExpr(ctx, iv.dom.min)}`);
    if (atMin.length === 0) emitStmt(ctx, init);
    else ctx.nested(`if (${atMin.join(" && ")}) {`, () => emitStmt(ctx, init));
  }
  emitStmt(ctx, blk.body);
}
