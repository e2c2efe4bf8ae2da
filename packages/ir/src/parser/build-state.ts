/**
 * State shared by the statement builders while one function is parsed: the function-level
 * results (attributes, parameter buffers, root allocations) and the stack of open blocks.
 */
import type { Buffer } from "../buffer.js";
import type { PrimExpr, Var } from "../expr.js";
import type { AttrValue, BufferRegion, IterVar, MatchBufferRegion, Stmt } from "../stmt.js";
import type { SourcePos } from "./errors.js";
import type { TVMScriptDialect } from "./dialect.js";

export interface FunctionState {
  /** What `T.alloc_buffer` means in this function. */
  readonly dialect: TVMScriptDialect;
  attrs: Record<string, AttrValue>;
  /** `T.alloc_buffer` outside any block: they belong to the implicit root block. */
  readonly rootAllocs: Buffer[];
  readonly bufferMap: Map<Var, Buffer>;
  /** Storage created by `T.allocate`, so that a later `T.Buffer(..., data=p)` view resolves to it. */
  readonly allocations: Map<Var, Buffer>;
}

/** What a `with T.block(...)` collects before the Block node can be built. */
export interface BlockState {
  readonly name: string;
  readonly pos: SourcePos;
  readonly iterVars: IterVar[];
  readonly bindings: PrimExpr[];
  reads: BufferRegion[] | undefined;
  writes: BufferRegion[] | undefined;
  predicate: PrimExpr | undefined;
  annotations: Record<string, AttrValue>;
  init: Stmt | undefined;
  readonly allocBuffers: Buffer[];
  readonly matchBuffers: MatchBufferRegion[];
}

export function newFunctionState(dialect: TVMScriptDialect): FunctionState {
  return { dialect, attrs: {}, rootAllocs: [], bufferMap: new Map(), allocations: new Map() };
}

export function newBlockState(name: string, pos: SourcePos): BlockState {
  return {
    name,
    pos,
    iterVars: [],
    bindings: [],
    reads: undefined,
    writes: undefined,
    predicate: undefined,
    annotations: {},
    init: undefined,
    allocBuffers: [],
    matchBuffers: [],
  };
}

/** A statement builder's result: a statement, nothing (a declaration), or a scope wrapping the rest. */
export type StmtResult = Stmt | undefined | { readonly wrap: (rest: Stmt) => Stmt };
