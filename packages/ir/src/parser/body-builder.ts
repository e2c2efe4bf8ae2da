/**
 * Builds TensorIR statements from a function body. Statement forms are dispatched here; loops,
 * blocks and the lowered scoped forms (allocate, launch_thread, …) live in their own modules.
 */
import { isFloat, isValidDType, lanesOf } from "../dtype.js";
import { IRError } from "../errors.js";
import { type BinaryOp, type PrimExpr, accessDType, binary, cast, stringImm, variable } from "../expr.js";
import { checkIntrinsicCall } from "../intrinsics.js";
import { vstoreCall } from "./vector-access.js";
import { type Stmt, bufferStore, evaluate, ifThenElseStmt, letStmt, seq, whileLoop } from "../stmt.js";
import { type PyExpr, type PyStmt, dottedName } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { evalAttrDict } from "./attr-values.js";
import { parseBufferDecl } from "./buffer-decl.js";
import type { BlockState, FunctionState, StmtResult } from "./build-state.js";
import { buildBlock, blockOnlyStatement, isBlockOnlyCall, parseAxisAssign, parseRemapAssign } from "./block-builder.js";
import { type SourcePos, fail } from "./errors.js";
import { MAX_IR_NESTING } from "./nesting.js";
import type { ExprEvaluator } from "./expr-evaluator.js";
import { isLiteral, literalToExpr, valuesToExprs } from "./literal.js";
import { buildFor } from "./loop-builder.js";
import { loweredAssign, loweredCallStatement, loweredWith } from "./lowered-builder.js";
import { parseRegion, subscriptItems } from "./regions.js";
import type { Binding, ScopeStack } from "./scope.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

const AUG_OPS: Partial<Record<string, BinaryOp>> = { "+": "add", "-": "sub", "*": "mul", "//": "floordiv", "%": "floormod" };

export class BodyBuilder {
  readonly blocks: BlockState[] = [];
  /** 0 while reading the function's own top-level statements. */
  private depth = 0;
  /** How deeply the statements being built will nest in the IR (loops, blocks, scoped declarations). */
  private irDepth = 0;
  /** Loops enclosing the statement being built (for `break` / `continue`). */
  loopDepth = 0;

  constructor(
    readonly ev: ExprEvaluator,
    readonly fn: FunctionState,
  ) {}

  get scopes(): ScopeStack {
    return this.ev.scopes;
  }

  get atFunctionTop(): boolean {
    return this.depth === 0 && this.blocks.length === 0;
  }

  get currentBlock(): BlockState | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  /** A statement list in the current scope; declarations vanish, scoped forms wrap what follows. */
  body(stmts: readonly PyStmt[]): Stmt {
    const out: Stmt[] = [];
    for (let i = 0; i < stmts.length; i++) {
      const r = this.statement(stmts[i]!);
      if (r === undefined) continue;
      if ("wrap" in r) {
        // A scoped declaration (an allocation, a let) wraps the statements after it: one level deeper.
        out.push(r.wrap(this.deeper(1, stmts[i]!.pos, () => this.body(stmts.slice(i + 1)))));
        break;
      }
      out.push(r);
    }
    return out.length === 0 ? evaluate(0) : seq(out);
  }

  /** A nested suite (loop, if, with body) in its own scope. */
  nested(stmts: readonly PyStmt[]): Stmt {
    this.depth++;
    try {
      return this.deeper(1, stmts[0]?.pos ?? { line: 1, column: 1 }, () => this.scopes.within(() => this.body(stmts)));
    } finally {
      this.depth--;
    }
  }

  /**
   * Builds `levels` IR levels deeper (a T.grid of 5 extents is 5 loops), failing at `pos` past
   * MAX_IR_NESTING: the compiler's passes recurse over the IR, so one line of T.grid(1, 1, …) with
   * a thousand extents must be refused like a thousand nested loops.
   */
  deeper<T>(levels: number, pos: SourcePos, build: () => T): T {
    const outer = this.irDepth;
    this.addIRLevels(levels, pos);
    try {
      return build();
    } finally {
      this.irDepth = outer;
    }
  }

  /** Adds IR levels for the rest of the current scope (a buffer allocation becomes an Allocate around it when lowered). */
  private addIRLevels(levels: number, pos: SourcePos): void {
    if (this.irDepth + levels > MAX_IR_NESTING) fail(`nesting deeper than ${MAX_IR_NESTING} levels of loops, blocks, allocations and scoped declarations`, pos);
    this.irDepth += levels;
  }

  private statement(s: PyStmt): StmtResult {
    try {
      return this.statementUnchecked(s);
    } catch (err) {
      if (err instanceof IRError) fail(err.message, s.pos);
      throw err;
    }
  }

  private statementUnchecked(s: PyStmt): StmtResult {
    switch (s.kind) {
      case "Pass":
      case "Import":
        return undefined;
      case "ExprStmt":
        return this.exprStatement(s.value);
      case "Assign":
        return this.assign(s.target, s.value);
      case "AugAssign":
        return this.augAssign(s);
      case "AnnAssign":
        return this.annAssign(s);
      case "For":
        return buildFor(this, s);
      case "With":
        return this.withStatement(s);
      case "If":
        return this.ifStatement(s);
      case "Return":
        if (s.value === undefined) fail("return needs a value in TVMScript (it builds T.ret(value))", s.pos);
        return evaluate(checkIntrinsicCall("ret", [this.ev.prim(s.value)]));
      case "Assert":
        return this.assertStatement(s);
      case "Break":
      case "Continue":
        if (this.loopDepth === 0) fail(`"${s.kind.toLowerCase()}" outside a loop`, s.pos);
        return evaluate(checkIntrinsicCall(s.kind === "Break" ? "break_loop" : "continue_loop", []));
      case "While":
        return this.whileStatement(s);
      case "FunctionDef":
        return fail('unsupported Python construct "def" inside a function: TVMScript functions cannot be nested', s.pos);
      case "ClassDef":
        return fail('unsupported Python construct "class" inside a function', s.pos);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Expression statements

  private exprStatement(e: PyExpr): StmtResult {
    if (e.kind === "String") return undefined; // a docstring
    if (e.kind !== "Call") return evaluate(this.ev.prim(e));
    const macro = e.func.kind === "Name" ? this.scopes.lookup(e.func.id) : undefined;
    if (macro?.kind === "macro") return this.inlineMacro(macro.def, e);
    if (macro?.kind === "broken macro") fail(macro.problem, e.pos);
    const method = this.ev.bufferMember(e.func);
    if (method?.member === "vstore") return vstoreCall(this.ev, method.buffer, e);
    const callee = dottedName(e.func);
    if (callee === "T.func_attr") return this.funcAttr(e);
    if (callee === "T.bind") return this.bindValue(undefined, e);
    if (callee === "T.evaluate") {
      if (e.args.length !== 1) fail(`T.evaluate takes 1 argument, got ${e.args.length}`, e.pos);
      return evaluate(this.ev.prim(e.args[0]!));
    }
    if (callee !== undefined && isBlockOnlyCall(callee)) return blockOnlyStatement(this, callee, e);
    const lowered = loweredCallStatement(this, callee, e);
    if (lowered !== undefined) return lowered;
    if (callee === "T.alloc_buffer" || callee === "T.sblock_alloc_buffer" || callee === "T.match_buffer") {
      fail(`the result of ${callee} must be assigned to a name, as in X = ${callee}(...)`, e.pos);
    }
    return evaluate(this.ev.prim(e));
  }

  /**
   * `f(A, i)` where the closure gives `f` as a `@T.inline` macro: its statements, built here with
   * its parameters bound to the arguments (a buffer stays a buffer). As in TVM's hygienic macros,
   * the body sees only its parameters and the closure, not the caller's names.
   */
  private inlineMacro(def: Extract<PyStmt, { kind: "FunctionDef" }>, call: CallNode): StmtResult {
    const args = bindArguments(
      call,
      def.name,
      def.params.map((p) => p.name),
      def.params.length,
    );
    const bindings = new Map([...args].map(([name, arg]) => [name, this.argumentBinding(arg)] as const));
    return this.scopes.hygienic(() => {
      for (const [name, b] of bindings) this.scopes.define(name, b);
      return this.nested(def.body.filter((st) => !(st.kind === "ExprStmt" && st.value.kind === "String")));
    });
  }

  private argumentBinding(arg: PyExpr): Binding {
    const bound = arg.kind === "Name" ? this.scopes.lookup(arg.id) : undefined;
    // A buffer stays a buffer, a loop variable keeps its range (for T.axis.remap in the body).
    if (bound?.kind === "buffer" || bound?.kind === "var") return bound;
    return { kind: "value", value: this.ev.value(arg) };
  }

  private funcAttr(call: CallNode): StmtResult {
    if (!this.atFunctionTop) fail("T.func_attr is only allowed at the top level of a function body", call.pos);
    if (call.args.length !== 1) fail(`T.func_attr takes 1 argument, got ${call.args.length}`, call.pos);
    // `T.func_attr(attrs)` where the closure gives the dict as text.
    const arg = call.args[0]!;
    const bound = arg.kind === "Name" ? this.scopes.lookup(arg.id) : undefined;
    const dict = bound?.kind === "expr" && bound.node.kind === "Dict" ? bound.node : arg;
    Object.assign(this.fn.attrs, evalAttrDict(this.ev, dict, "T.func_attr"));
    return undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Assignments

  private assign(target: PyExpr, value: PyExpr): StmtResult {
    if (target.kind === "Subscript") return this.store(target, this.ev.value(value));
    const isRemap = value.kind === "Call" && dottedName(value.func) === "T.axis.remap";
    if (isRemap && (target.kind === "Tuple" || target.kind === "Name")) return parseRemapAssign(this, target, value);
    if (target.kind === "Tuple") return this.tupleAssign(target, value);
    if (target.kind !== "Name") fail("can only assign to a name or a buffer element", target.pos);
    const name = target.id;
    if (value.kind === "Call") {
      const callee = dottedName(value.func) ?? "";
      const special = this.assignCall(name, callee, value);
      if (special !== null) return special;
    }
    const v = this.ev.prim(value);
    const letVar = variable(name, v.dtype);
    this.scopes.define(name, { kind: "var", var: letVar });
    return { wrap: (rest) => letStmt(letVar, v, rest) };
  }

  /**
   * `n, m = T.int64(), T.int64()`: read as consecutive assignments `n = ...` then `m = ...` (the
   * declarations TVM writes this way do not refer to each other).
   */
  private tupleAssign(target: Extract<PyExpr, { kind: "Tuple" }>, value: PyExpr): StmtResult {
    if (value.kind !== "Tuple") fail("a tuple of names can only be assigned T.axis.remap(...) or a tuple of values", value.pos);
    if (value.elts.length !== target.elts.length) {
      fail(`cannot assign ${value.elts.length} values to ${target.elts.length} names`, target.pos);
    }
    const results = target.elts.map((t, i) => this.assign(t, value.elts[i]!));
    const wraps = results.filter((r): r is { wrap: (rest: Stmt) => Stmt } => r !== undefined && "wrap" in r);
    if (wraps.length !== results.filter((r) => r !== undefined).length) {
      fail("a tuple assignment may declare names or bind values, not store to buffers", target.pos);
    }
    if (wraps.length === 0) return undefined;
    return { wrap: (rest) => wraps.reduceRight((inner, w) => w.wrap(inner), rest) };
  }

  /** `name = T.<something>(...)` forms that declare rather than bind a value; null if not one. */
  private assignCall(name: string, callee: string, call: CallNode): StmtResult | null {
    if (callee.startsWith("T.axis.")) return parseAxisAssign(this, name, callee, call);
    switch (callee) {
      case "T.alloc_buffer":
        if (this.fn.dialect === "tvm") break; // a flat allocation: a scoped form of lowered-builder
        return this.blockAllocBuffer(name, callee, call);
      case "T.sblock_alloc_buffer":
        return this.blockAllocBuffer(name, callee, call);
      case "T.match_buffer":
        return this.matchBuffer(name, call);
      case "T.var":
        return this.declareVar(name, call, call.args[0]);
      case "T.Var": {
        // TVM's `tirx.Var(name_hint, ty)`: a free variable, as `T.var`; it takes the assigned name.
        const args = bindArguments(call, "T.Var", ["name", "ty"], 2);
        this.ev.string(args.get("name")!, "the name of T.Var");
        return this.declareVar(name, call, args.get("ty"));
      }
      case "T.bind":
        return this.bindValue(name, call);
      case "T.handle":
        return this.declareHandle(name, call);
      default:
        break;
    }
    const dt = callee.startsWith("T.") ? callee.slice(2) : "";
    if (call.args.length === 0 && call.keywords.length === 0 && /^(u?int|float|bool)\d*(x\d+)?$/.test(dt)) {
      return this.declareVar(name, call, undefined);
    }
    return loweredAssign(this, name, callee, call);
  }

  /** A block allocation: of the enclosing block, or of the implicit root block at function level. */
  private blockAllocBuffer(name: string, callee: string, call: CallNode): StmtResult {
    const annotations = call.keywords.find((k) => k.name === "annotations");
    if (annotations !== undefined) {
      fail(`${callee}(annotations=...) is a flat allocation's argument (today's TVM dialect); a block allocation has no annotations`, annotations.pos);
    }
    if (this.scopes.lookupInnermost(name)?.kind === "buffer") fail(`buffer "${name}" is already defined in this scope`, call.pos);
    const { buffer } = parseBufferDecl(this.ev, call, callee, name);
    this.addIRLevels(1, call.pos);
    (this.currentBlock?.allocBuffers ?? this.fn.rootAllocs).push(buffer);
    this.scopes.define(name, { kind: "buffer", buffer });
    return undefined;
  }

  /**
   * `x = T.bind(value[, type_annotation])`: TVM's explicit spelling of a let binding (`x = value`);
   * `T.bind(value, var=x)` as a statement binds an existing variable for what follows. A type
   * annotation (`T.handle("float32")`, `T.int64`) gives the variable's dtype; a pointer's pointee is dropped.
   */
  private bindValue(name: string | undefined, call: CallNode): StmtResult {
    const args = bindArguments(call, "T.bind", ["value", "type_annotation", "var"], 1);
    const varNode = args.get("var");
    if (name !== undefined && varNode !== undefined) fail("T.bind(..., var=x) binds x itself: write it as a statement, not an assignment", varNode.pos);
    if (name === undefined && varNode === undefined) fail("T.bind as a statement needs var=, as in T.bind(value, var=x)", call.pos);
    const annotated = args.get("type_annotation");
    const dt = annotated === undefined ? undefined : this.typeAnnotation(annotated);
    if (varNode !== undefined) {
      const v = this.ev.prim(varNode);
      if (v.kind !== "Var") fail("var= of T.bind must be a variable", varNode.pos);
      const value = this.ev.prim(args.get("value")!, v.dtype);
      return { wrap: (rest) => letStmt(v, value, rest) };
    }
    const v = this.ev.prim(args.get("value")!, dt);
    if (dt !== undefined && v.dtype !== dt) fail(`T.bind: the value has dtype ${v.dtype}, the annotation says ${dt}`, args.get("value")!.pos);
    const letVar = variable(name!, dt ?? v.dtype);
    this.scopes.define(name!, { kind: "var", var: letVar });
    return { wrap: (rest) => letStmt(letVar, v, rest) };
  }

  /** The dtype a type annotation stands for: `T.handle(...)` (a pointer), `T.int64` or `T.int64()`. */
  private typeAnnotation(e: PyExpr): string {
    const callee = dottedName(e.kind === "Call" ? e.func : e);
    if (callee === "T.handle") return "handle";
    const dt = callee?.startsWith("T.") ? callee.slice(2) : "";
    if (/^(u?int|float|bool)\d*(x\d+)?$/.test(dt)) return dt;
    return fail('expected a type annotation such as T.handle("float32") or T.int64', e.pos);
  }

  /** `n = T.int32()` / `n = T.var("int32")` / `n = T.Var("n", "int32")`: a free variable, e.g. a symbolic shape. */
  private declareVar(name: string, call: CallNode, dtypeNode: PyExpr | undefined): StmtResult {
    const dt = dtypeNode === undefined ? dottedName(call.func)!.slice(2) : this.ev.string(dtypeNode, "a dtype");
    try {
      this.scopes.define(name, { kind: "var", var: variable(name, dt) });
    } catch (err) {
      if (err instanceof IRError) fail(`unknown dtype "${dt}"`, call.pos);
      throw err;
    }
    return undefined;
  }

  /** `p = T.handle("float32", "global")`: a free pointer variable; only the handle is kept (our variables carry no pointee type). */
  private declareHandle(name: string, call: CallNode): StmtResult {
    const args = bindArguments(call, "T.handle", ["dtype", "storage_scope"], 0);
    const dtypeNode = args.get("dtype");
    if (dtypeNode !== undefined) this.ev.string(dtypeNode, "the pointee dtype of T.handle");
    const scopeNode = args.get("storage_scope");
    if (scopeNode !== undefined) this.ev.string(scopeNode, "the storage scope of T.handle");
    this.scopes.define(name, { kind: "var", var: variable(name, "handle") });
    return undefined;
  }

  private matchBuffer(name: string, call: CallNode): StmtResult {
    const source = call.args[0] ?? call.keywords.find((k) => k.name === "param")?.value;
    if (source === undefined) fail("T.match_buffer is missing its source argument", call.pos);
    if (source.kind === "Name") {
      const b = this.scopes.lookup(source.id);
      if (b?.kind === "handle") {
        if (!this.atFunctionTop) fail("T.match_buffer of a parameter must be at the top level of the function", call.pos);
        if (this.fn.bufferMap.has(b.var)) fail(`parameter "${source.id}" already has a buffer`, source.pos);
        const { buffer } = parseBufferDecl(this.ev, call, "T.match_buffer", name, {
          leading: ["param"],
          symbolicShape: true,
          freshOffset: this.fn.dialect === "tvm",
        });
        this.fn.bufferMap.set(b.var, buffer);
        this.scopes.define(name, { kind: "buffer", buffer });
        return undefined;
      }
    }
    const block = this.currentBlock;
    if (block === undefined) {
      fail("T.match_buffer outside a block must match a T.handle parameter", source.pos);
    }
    const region = parseRegion(this.ev, source);
    const { buffer } = parseBufferDecl(this.ev, call, "T.match_buffer", name, {
      leading: ["param"],
      symbolicShape: true,
      freshOffset: this.fn.dialect === "tvm",
      shapeOf: region,
    });
    block.matchBuffers.push({ buffer, source: region });
    this.scopes.define(name, { kind: "buffer", buffer });
    return undefined;
  }

  private store(target: Extract<PyExpr, { kind: "Subscript" }>, value: ReturnType<ExprEvaluator["value"]>): Stmt {
    const buffer = this.ev.buffer(target.value);
    const indices = this.ev.indices(buffer, subscriptItems(target.indices), target.pos);
    const storedType = accessDType(buffer, indices);
    const lanes = lanesOf(storedType);
    const v = isLiteral(value) ? literalToExpr(value, storedType) : value;
    // As TVM's builder does: a value of another type but the same lanes is cast to the buffer's.
    if (v.dtype !== storedType && lanesOf(v.dtype) === lanes) return bufferStore(buffer, cast(storedType, v), indices);
    return bufferStore(buffer, v, indices);
  }

  private augAssign(s: Extract<PyStmt, { kind: "AugAssign" }>): Stmt {
    if (s.target.kind !== "Subscript") fail("augmented assignment is only supported on buffer elements, as in A[i] += x", s.target.pos);
    const current = this.ev.value(s.target);
    const [a, b] = valuesToExprs(current, this.ev.value(s.value));
    let result: PrimExpr;
    if (s.op === "/") {
      if (!isFloat(a.dtype)) fail('"/=" on integers is ambiguous in TVMScript: use "//="', s.pos);
      result = binary("div", a, b);
    } else {
      const op = AUG_OPS[s.op];
      if (op === undefined) fail(`operator "${s.op}=" is not supported in TVMScript`, s.pos);
      result = binary(op, a, b);
    }
    return this.store(s.target, result);
  }

  /** `x: T.int32 = value` or `x: T.let[T.int32] = value`: a let binding with a declared dtype. */
  private annAssign(s: Extract<PyStmt, { kind: "AnnAssign" }>): StmtResult {
    if (s.target.kind !== "Name") fail("only a name can be declared with a type annotation", s.target.pos);
    if (s.value === undefined) fail(`"${s.target.id}" is declared without a value`, s.pos);
    const declared = letAnnotationDType(s.annotation);
    const v = this.ev.prim(s.value, declared);
    const letVar = variable(s.target.id, declared ?? v.dtype);
    this.scopes.define(s.target.id, { kind: "var", var: letVar });
    return { wrap: (rest) => letStmt(letVar, v, rest) };
  }

  // -------------------------------------------------------------------------------------------
  // Compound statements

  private withStatement(s: Extract<PyStmt, { kind: "With" }>): StmtResult {
    if (s.item.kind !== "Call") fail("unsupported with-statement: expected with T.block(...) or another T.* scope", s.item.pos);
    const callee = dottedName(s.item.func);
    if (callee === "T.block" || callee === "T.sblock") return buildBlock(this, s.item, s.body);
    if (callee === "T.init") return this.init(s.item, s.body);
    const lowered = loweredWith(this, callee, s.item, s.asTarget, s.body);
    if (lowered !== undefined) return lowered;
    fail(`unsupported with-statement "${callee ?? "<expression>"}(...)"`, s.item.pos);
  }

  private init(call: CallNode, body: readonly PyStmt[]): StmtResult {
    const block = this.currentBlock;
    if (block === undefined) fail("T.init() is only allowed inside a block", call.pos);
    if (block.init !== undefined) fail(`block "${block.name}" already has an init`, call.pos);
    block.init = this.nested(body);
    return undefined;
  }

  /**
   * `assert cond, "message"` or `assert cond, ("ValueError", ["part", ...])`: TVM's AssertStmt,
   * here `T.assert(cond, kind, ...parts)` evaluated; a plain message is a RuntimeError.
   */
  private assertStatement(s: Extract<PyStmt, { kind: "Assert" }>): Stmt {
    const cond = this.ev.condition(s.test, "an assert condition");
    const msg = s.msg;
    let kind = "RuntimeError";
    let parts: string[] = [];
    if (msg?.kind === "String") parts = [msg.value];
    else if (msg?.kind === "Tuple" && msg.elts.length === 2 && msg.elts[0]!.kind === "String" && msg.elts[1]!.kind === "List") {
      kind = msg.elts[0]!.value;
      parts = msg.elts[1]!.elts.map((p) => this.ev.string(p, "a part of an assert message"));
    } else if (msg !== undefined) {
      fail('the message of an assert must be a string literal or ("ErrorKind", ["part", ...])', msg.pos);
    }
    return evaluate(checkIntrinsicCall("assert", [cond, stringImm(kind), ...parts.map((p) => stringImm(p))]));
  }

  private whileStatement(s: Extract<PyStmt, { kind: "While" }>): Stmt {
    const cond = this.ev.statementCondition(s.test, "while");
    this.loopDepth++;
    try {
      return whileLoop(cond, this.nested(s.body));
    } finally {
      this.loopDepth--;
    }
  }

  private ifStatement(s: Extract<PyStmt, { kind: "If" }>): Stmt {
    const cond = this.ev.statementCondition(s.test, "if");
    const thenCase = this.nested(s.body);
    const elseCase = s.orelse.length > 0 ? this.nested(s.orelse) : undefined;
    return ifThenElseStmt(cond, thenCase, elseCase);
  }
}

/**
 * The dtype of `T.int32`, of TVM's `T.let[T.int32]` or of a typed pointer `T.handle("float32")`;
 * undefined for a bare `T.let` (the value's dtype).
 */
function letAnnotationDType(ann: PyExpr): string | undefined {
  if (dottedName(ann) === "T.let") return undefined;
  let inner = ann.kind === "Subscript" && dottedName(ann.value) === "T.let" && ann.indices.length === 1 ? ann.indices[0]! : ann;
  if (inner.kind === "Call" && dottedName(inner.func) === "T.handle") inner = inner.func;
  const name = dottedName(inner);
  const dt = name?.startsWith("T.") ? name.slice(2) : "";
  if (!isValidDType(dt)) {
    fail("expected a dtype annotation such as T.int32 or T.let[T.int32]", inner.pos);
  }
  return dt;
}
