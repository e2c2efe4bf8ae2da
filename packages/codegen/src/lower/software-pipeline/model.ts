/** One statement of a pipelined loop body with its annotation and accesses. */
import { type Stmt, type Var, forEachStmt } from "@tessera/ir";
import type { StmtAccesses } from "./accesses.js";

export interface PipelineStmt {
  /** Position in the original loop body. */
  readonly position: number;
  readonly stmt: Stmt;
  readonly stage: number;
  /** Position in the pipelined body (`software_pipeline_order`). */
  readonly order: number;
  readonly isAsync: boolean;
  readonly accesses: StmtAccesses;
}

/** `statement 2 ("gemm", stage 1)`: the position, the first block inside it, the stage. */
export function describeStmt(st: PipelineStmt): string {
  let name: string | undefined;
  forEachStmt(st.stmt, (s) => {
    if (name === undefined && s.kind === "BlockRealize" && s.block.name !== "") name = s.block.name;
    return name === undefined;
  });
  return `statement ${st.position} (${name === undefined ? "" : `"${name}", `}stage ${st.stage})`;
}

export function writesData(st: PipelineStmt, data: Var): boolean {
  return st.accesses.writes.some((r) => r.buffer.data === data);
}

export function readsData(st: PipelineStmt, data: Var): boolean {
  return st.accesses.reads.some((r) => r.buffer.data === data);
}
