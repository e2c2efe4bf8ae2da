/**
 * What the C target cannot run, found on the scheduled function before lowering, so the error
 * names the loop or buffer as the user wrote it: loops bound to GPU threads, and buffers in GPU
 * memory scopes (`shared`, `shared.dyn`, `warp`). `local` buffers are fine: on the CPU they are
 * arrays private to the scope that allocates them.
 */
import { type Buffer, type PrimFunc, forEachStmt, printExpr } from "@tessera/ir";
import { CLoweringError } from "./errors.js";

const GPU_SCOPES: ReadonlySet<string> = new Set(["shared", "shared.dyn", "warp"]);

export function checkCSchedule(func: PrimFunc, symbol: string): void {
  const checkBuffer = (b: Buffer, where: string): void => {
    if (!GPU_SCOPES.has(b.scope)) return;
    throw new CLoweringError(
      symbol,
      `buffer ${b.name} ${where} is in GPU storage scope "${b.scope}", which the CPU has no counterpart for; ` +
        `use scope "global" or "local" (e.g. sch.cacheRead(block, i, "global")) when scheduling for the CPU`,
    );
  };
  forEachStmt(func.body, (s) => {
    if (s.kind === "For" && s.forKind === "thread_binding") {
      throw new CLoweringError(
        symbol,
        `loop ${s.loopVar.name} (extent ${printExpr(s.extent)}) is bound to the GPU thread axis ${s.threadTag ?? "?"}; ` +
          `the C target has no thread axes: use sch.parallel(loop) for multicore loops instead of sch.bind`,
      );
    }
    if (s.kind === "BlockRealize") for (const b of s.block.allocBuffers) checkBuffer(b, `(allocated in block ${s.block.name})`);
    if (s.kind === "Allocate") checkBuffer(s.buffer, "(allocated in the function body)");
    if (s.kind === "Evaluate" && s.value.kind === "Call" && s.value.op === "tvm_storage_sync") {
      throw new CLoweringError(symbol, "the function has a GPU barrier (T.tvm_storage_sync), which the C target cannot run");
    }
  });
}
