/**
 * RewriteUnboundBlock (TVM's `Postproc::RewriteUnboundBlock`): every outermost block not yet
 * under both a `blockIdx` and a `threadIdx` loop gets its outer data-parallel loops bound, as
 * AutoBind does but with a fixed thread factor, min(max threads per block, extent). A block it
 * cannot bind (no outer data-parallel loop, or blockIdx without threadIdx) rejects the sample.
 */
import { type Stmt, TesseraError } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import { isBlockIdx, isThreadIdx } from "../schedule-utils/block-info.js";
import { bindBlockThreadIdx, fixedThreadFactor } from "../schedule-utils/thread-bind.js";
import { gpuTargetOf, type TuneContext } from "../tune-context.js";
import { POSTPROC_OK, type Postproc, type PostprocResult, rejected } from "../interfaces/postproc.js";

export interface RewriteUnboundBlockOptions {
  /** TVM: 256. */
  readonly maxThreadblocks?: number;
  /** The target's limit by default. */
  readonly maxThreadsPerBlock?: number;
}

export function rewriteUnboundBlock(opts: RewriteUnboundBlockOptions = {}): Postproc {
  const maxThreadblocks = opts.maxThreadblocks ?? 256;
  if (!Number.isInteger(maxThreadblocks) || maxThreadblocks <= 0) {
    throw new RangeError(`rewriteUnboundBlock: maxThreadblocks must be a positive integer, got ${String(maxThreadblocks)}`);
  }
  return {
    name: "rewriteUnboundBlock",
    apply(sch: Schedule, ctx: TuneContext): PostprocResult {
      const limits = { maxThreadblocks, maxThreadsPerBlock: opts.maxThreadsPerBlock ?? gpuTargetOf(ctx, "RewriteUnboundBlock").maxThreadsPerBlock };
      for (const name of unboundBlockNames(sch.func.body)) {
        let block;
        try {
          block = sch.getBlock(name);
        } catch (err) {
          if (err instanceof TesseraError) return rejected(`block ${name} cannot be looked up by name: ${err.message.split("\n")[0]}`);
          throw err;
        }
        const outcome = bindBlockThreadIdx(sch, block, limits, fixedThreadFactor);
        if (outcome.kind === "unbindable") return rejected(outcome.reason);
      }
      return POSTPROC_OK;
    },
  };
}

/** The outermost non-root blocks that are not under both a blockIdx and a threadIdx loop. */
export function unboundBlockNames(body: Stmt): string[] {
  const names: string[] = [];
  const visit = (s: Stmt, blockIdx: number, threadIdx: number, root: boolean): void => {
    switch (s.kind) {
      case "For": {
        const b = blockIdx + (isBlockIdx(s) ? 1 : 0);
        const t = threadIdx + (isThreadIdx(s) ? 1 : 0);
        if (b === 0 || t === 0) visit(s.body, b, t, false);
        return;
      }
      case "BlockRealize":
        if (root) {
          visit(s.block.body, blockIdx, threadIdx, false);
          return;
        }
        names.push(s.block.name);
        return;
      case "SeqStmt":
        for (const c of s.seq) visit(c, blockIdx, threadIdx, false);
        return;
      case "IfThenElse":
        visit(s.thenCase, blockIdx, threadIdx, false);
        if (s.elseCase) visit(s.elseCase, blockIdx, threadIdx, false);
        return;
      case "While":
      case "LetStmt":
      case "Allocate":
      case "DeclBuffer":
      case "AttrStmt":
        visit(s.body, blockIdx, threadIdx, false);
        return;
      default:
        return;
    }
  };
  visit(body, 0, 0, true);
  return names;
}
