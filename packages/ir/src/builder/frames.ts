/**
 * The builder's frame stack: each open construct (function body, loop body, block, branch)
 * collects the statements emitted inside it, like the frames of TVMScript's IRBuilder.
 */
import type { Buffer } from "../buffer.js";
import type { PrimExpr } from "../expr.js";
import type { Annotations, BufferRegion, IterVar, Stmt } from "../stmt.js";

export interface StmtFrame {
  readonly kind: "stmts";
  readonly stmts: Stmt[];
}

export interface BlockFrame {
  readonly kind: "block";
  readonly name: string;
  readonly stmts: Stmt[];
  readonly iterVars: IterVar[];
  readonly bindings: PrimExpr[];
  readonly allocBuffers: Buffer[];
  predicate: PrimExpr | undefined;
  init: Stmt | undefined;
  reads: readonly BufferRegion[] | undefined;
  writes: readonly BufferRegion[] | undefined;
  annotations: Annotations;
}

export type Frame = StmtFrame | BlockFrame;

export function stmtFrame(): StmtFrame {
  return { kind: "stmts", stmts: [] };
}

export function blockFrame(name: string): BlockFrame {
  return {
    kind: "block",
    name,
    stmts: [],
    iterVars: [],
    bindings: [],
    allocBuffers: [],
    predicate: undefined,
    init: undefined,
    reads: undefined,
    writes: undefined,
    annotations: {},
  };
}
