/**
 * How much work a lowered module does, before running it: statements executed over all threads of
 * all kernels (loops multiply, branches count their larger side). A legal but absurd schedule —
 * say a loop split by 100000 whose iterations are nearly all predicated off — would keep the
 * simulator busy for hours; comparing this count with the workload's own keeps grading bounded.
 */
import type { DeviceKernel, LoweredModule } from "@tessera/codegen";
import type { PrimFunc, Stmt } from "@tessera/ir";

export function moduleWork(module: LoweredModule): number {
  return module.kernels.reduce((sum, k) => {
    const [gx, gy, gz] = k.launch.grid;
    return sum + gx * gy * gz * blockWork(k);
  }, 0);
}

/** Statements one thread block of `kernel` executes (all its threads). */
export function blockWork(kernel: DeviceKernel): number {
  const [bx, by, bz] = kernel.launch.block;
  return bx * by * bz * stmtWork(kernel.body);
}

/** The unscheduled function's work: the yardstick schedules are compared with. */
export function funcWork(func: PrimFunc): number {
  return stmtWork(func.body);
}

function stmtWork(s: Stmt): number {
  switch (s.kind) {
    case "BufferStore":
    case "Evaluate":
      return 1;
    case "SeqStmt":
      return s.seq.reduce((sum, c) => sum + stmtWork(c), 0);
    case "For":
      // Extents are constants after lowering; a symbolic one counts once (no better bound here).
      return (s.extent.kind === "IntImm" ? s.extent.value : 1) * stmtWork(s.body);
    case "While":
      // Its trip count is unknown: it counts once, as a symbolic extent does.
      return stmtWork(s.body);
    case "IfThenElse":
      return Math.max(stmtWork(s.thenCase), s.elseCase === undefined ? 0 : stmtWork(s.elseCase));
    case "LetStmt":
    case "Allocate":
    case "DeclBuffer":
    case "AttrStmt":
      return stmtWork(s.body);
    case "BlockRealize":
      return stmtWork(s.block.body) + (s.block.init === undefined ? 0 : stmtWork(s.block.init));
  }
}

/** A schedule may do this many times the unscheduled function's work (copies, predicated tails) before it is refused. */
export const MAX_WORK_FACTOR = 8;

/** Why `module` must not be run (far more work than `unscheduled`), or undefined. */
export function excessiveWork(module: LoweredModule, unscheduled: PrimFunc): string | undefined {
  const work = moduleWork(module);
  const baseline = funcWork(unscheduled);
  if (work <= MAX_WORK_FACTOR * baseline) return undefined;
  return (
    `the kernels would execute about ${work.toExponential(1)} statements, more than ${MAX_WORK_FACTOR}× the ${baseline.toExponential(1)} of the computation itself ` +
    "(a split by a factor much larger than its loop leaves most iterations predicated off?); it was not run"
  );
}
