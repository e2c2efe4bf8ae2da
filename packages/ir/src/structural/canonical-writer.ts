/**
 * Writes an IR tree as a canonical token stream: the single definition of "structure" that
 * structural equality, hashing and diff all share (two trees are equal exactly when their streams
 * are, and the hash is a hash of the stream, so equal ⇒ same hash by construction).
 *
 * Variables and buffers are written as positions, not names: the first time a side meets one (at a
 * definition point — parameter, loop var, block iter var, let var, allocated or matched buffer — or,
 * for a free one, at its first use) it is written as "new" and numbered; later uses write that
 * number. A definition point always numbers afresh, so a variable object reused by two sibling
 * loops is two bindings, as after scoping. Block names are structure only with `compareNames`
 * (TVM's SBlock equality ignores `name_hint` as well).
 */
import type { Buffer } from "../buffer.js";
import { IRError } from "../errors.js";
import type { PrimExpr, Var } from "../expr.js";
import type { IRModule, PrimFunc } from "../func.js";
import type { AttrValue, Block, BlockRealize, BufferRegion, Range, Stmt } from "../stmt.js";
import { STMT_KINDS, type StructuralNode, describeValue, isExprNode, kindOf } from "./node-kinds.js";
import type { ResolvedStructuralOptions } from "./options.js";
import { type IRPath, childPath, fieldPath, indexPath, renderPath, rootPath } from "./path.js";
import { formatNumber } from "../printer/expr-text.js";

/** What a token is about, kept so that a difference can be explained in words. */
export type TokenSubject =
  | { readonly kind: "expr"; readonly expr: PrimExpr; readonly label: string | undefined }
  | { readonly kind: "var"; readonly v: Var; readonly index: number; readonly fresh: boolean; readonly label: string | undefined }
  | { readonly kind: "buffer"; readonly buffer: Buffer; readonly index: number; readonly fresh: boolean }
  | { readonly kind: "value"; readonly label: string; readonly text: string };

/** The token that defines a variable: its dtype, and its name where names are compared. */
export function freshVarToken(dtype: string, name: string | undefined): string {
  return `V+:${dtype}${name === undefined ? "" : `:${JSON.stringify(name)}`}`;
}

/** The token that defines a buffer, with its name where names are compared. */
export function freshBufferToken(name: string | undefined): string {
  return `B+${name === undefined ? "" : `:${JSON.stringify(name)}`}`;
}

/** The label of the value token that writes a block's name (with `compareNames` only). */
export const BLOCK_NAME_LABEL = "block name";

/**
 * Where the tokens go. With `compareNames`, names appear only in the tokens of a fresh variable
 * (`V+:dtype:"name"`) or buffer (`B+:"name"`) and in the `BLOCK_NAME_LABEL` values (hash.ts's
 * `structuralHashes` relies on it).
 */
export interface TokenSink {
  token(key: string, path: IRPath | undefined, subject: TokenSubject): void;
}

function rootCategory(kind: string): string {
  if (isExprNode({ kind })) return "expression";
  if (STMT_KINDS.has(kind)) return "statement";
  return kind;
}

export class CanonicalWriter {
  private readonly varNumbers = new Map<Var, number>();
  private readonly bufferNumbers = new Map<Buffer, number>();
  /** Every var binding in numbering order (index = its number). */
  readonly vars: Var[] = [];
  readonly buffers: Buffer[] = [];

  constructor(
    private readonly sink: TokenSink,
    private readonly opts: ResolvedStructuralOptions,
  ) {}

  writeRoot(node: StructuralNode, what: string): void {
    const kind = kindOf(node);
    if (kind === undefined) {
      throw new IRError(`${what}: expected a PrimExpr, Stmt, Block, Buffer, PrimFunc or IRModule, got ${describeValue(node)}`);
    }
    this.value(undefined, "node category", rootCategory(kind));
    switch (kind) {
      case "IRModule":
        return this.module(node as IRModule);
      case "PrimFunc": {
        const f = node as PrimFunc;
        const symbol = f.attrs["global_symbol"];
        return this.func(f, rootPath(typeof symbol === "string" ? symbol : "func"));
      }
      case "Block":
        return this.block(node as Block, rootPath(`block(${JSON.stringify((node as Block).name)})`));
      case "Buffer":
        return this.useBuffer(node as Buffer, rootPath(`buffer(${(node as Buffer).name})`));
      default:
        if (isExprNode(node)) return this.expr(node, rootPath("expr"));
        return this.stmt(node as Stmt, rootPath("stmt"));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Primitive tokens

  private value(path: IRPath | undefined, label: string, text: string): void {
    this.sink.token(`${label}=${text}`, path, { kind: "value", label, text });
  }

  private count(path: IRPath | undefined, label: string, n: number): void {
    this.value(path, label, String(n));
  }

  private nameOf(name: string): string | undefined {
    return this.opts.compareNames ? name : undefined;
  }

  /** A definition point: the variable gets a fresh number on this side. */
  private defineVar(v: Var, path: IRPath, label: string): void {
    this.checkVar(v, path);
    const index = this.vars.length;
    this.vars.push(v);
    this.varNumbers.set(v, index);
    this.sink.token(freshVarToken(v.dtype, this.nameOf(v.name)), path, { kind: "var", v, index, fresh: true, label });
  }

  private useVar(v: Var, path: IRPath, label: string | undefined): void {
    const index = this.varNumbers.get(v);
    if (index === undefined) {
      this.defineVar(v, path, label ?? "var");
      return;
    }
    this.sink.token(`V#${index}`, path, { kind: "var", v, index, fresh: false, label });
  }

  private checkVar(v: unknown, path: IRPath): asserts v is Var {
    if (kindOf(v) !== "Var") throw new IRError(`structural comparison: expected a Var at ${renderPath(path)}, got ${describeValue(v)}`);
  }

  private defineBuffer(b: Buffer, path: IRPath): void {
    if (kindOf(b) !== "Buffer") {
      throw new IRError(`structural comparison: expected a Buffer at ${renderPath(path)}, got ${describeValue(b)}`);
    }
    const index = this.buffers.length;
    this.buffers.push(b);
    this.bufferNumbers.set(b, index);
    this.sink.token(freshBufferToken(this.nameOf(b.name)), path, { kind: "buffer", buffer: b, index, fresh: true });
    this.value(path, "buffer dtype", b.dtype);
    this.count(path, "buffer rank", b.shape.length);
    b.shape.forEach((s, i) => this.expr(s, indexPath(fieldPath(path, "shape"), i), "buffer shape"));
    this.count(path, "number of buffer strides", b.strides.length);
    b.strides.forEach((s, i) => this.expr(s, indexPath(fieldPath(path, "strides"), i), "buffer stride"));
    this.expr(b.elemOffset, fieldPath(path, "elemOffset"), "buffer elem_offset");
    this.value(path, "buffer scope", b.scope);
    this.useVar(b.data, fieldPath(path, "data"), "buffer data");
    this.value(path, "buffer data_alignment", String(b.dataAlignment));
    // offset_factor 0 means "unconstrained", which TVM stores as 1: the two are the same buffer.
    this.value(path, "buffer offset_factor", String(b.offsetFactor === 0 ? 1 : b.offsetFactor));
  }

  private useBuffer(b: Buffer, path: IRPath): void {
    const index = this.bufferNumbers.get(b);
    if (index === undefined) {
      this.defineBuffer(b, path);
      return;
    }
    this.sink.token(`B#${index}`, path, { kind: "buffer", buffer: b, index, fresh: false });
  }

  // -------------------------------------------------------------------------------------------
  // Expressions

  /** `label` names the field this expression fills (e.g. "loop extent"), for messages about its root. */
  expr(e: PrimExpr, path: IRPath, label?: string): void {
    if (!isExprNode(e)) {
      throw new IRError(`structural comparison: expected an expression at ${renderPath(path)}, got ${describeValue(e)}`);
    }
    if (e.kind === "Var") return this.useVar(e, path, label);
    const emit = (key: string): void => this.sink.token(key, path, { kind: "expr", expr: e, label });
    switch (e.kind) {
      case "IntImm":
        return emit(`I:${e.dtype}:${e.value}`);
      case "FloatImm":
        return emit(`F:${e.dtype}:${formatNumber(e.value)}`);
      case "StringImm":
        return emit(`S:${JSON.stringify(e.value)}`);
      case "Binary":
        emit(`Bin:${e.op}:${e.dtype}`);
        this.expr(e.a, fieldPath(path, "a"));
        this.expr(e.b, fieldPath(path, "b"));
        return;
      case "Not":
        emit(`Not:${e.dtype}`);
        return this.expr(e.a, fieldPath(path, "a"));
      case "Select":
        emit(`Select:${e.dtype}`);
        this.expr(e.condition, fieldPath(path, "condition"));
        this.expr(e.trueValue, fieldPath(path, "trueValue"));
        this.expr(e.falseValue, fieldPath(path, "falseValue"));
        return;
      case "Cast":
        emit(`Cast:${e.dtype}`);
        return this.expr(e.value, fieldPath(path, "value"));
      case "BufferLoad":
        emit(`Load:${e.dtype}:${e.indices.length}${e.predicate === undefined ? "" : ":predicated"}`);
        this.useBuffer(e.buffer, fieldPath(path, "buffer"));
        e.indices.forEach((x, i) => this.expr(x, indexPath(fieldPath(path, "indices"), i)));
        if (e.predicate !== undefined) this.expr(e.predicate, fieldPath(path, "predicate"));
        return;
      case "Ramp":
        emit(`Ramp:${e.dtype}:${e.lanes}`);
        this.expr(e.base, fieldPath(path, "base"));
        this.expr(e.stride, fieldPath(path, "stride"));
        return;
      case "Broadcast":
        emit(`Broadcast:${e.dtype}:${e.lanes}`);
        return this.expr(e.value, fieldPath(path, "value"));
      case "Let":
        emit(`Let:${e.dtype}`);
        this.defineVar(e.variable, fieldPath(path, "variable"), "let var");
        this.expr(e.value, fieldPath(path, "value"));
        this.expr(e.body, fieldPath(path, "body"));
        return;
      case "Call":
        emit(`Call:${e.op}:${e.dtype}:${e.args.length}`);
        e.args.forEach((x, i) => this.expr(x, indexPath(fieldPath(path, "args"), i)));
        return;
    }
  }

  private range(r: Range, path: IRPath, label: string): void {
    this.expr(r.min, fieldPath(path, "min"), `${label} min`);
    this.expr(r.extent, fieldPath(path, "extent"), `${label} extent`);
  }

  private region(r: BufferRegion, path: IRPath): void {
    this.useBuffer(r.buffer, fieldPath(path, "buffer"));
    this.count(path, "region rank", r.region.length);
    r.region.forEach((rg, i) => this.range(rg, indexPath(fieldPath(path, "region"), i), "region"));
  }

  // -------------------------------------------------------------------------------------------
  // Attributes and annotations (deep; record keys compared as sets)

  private attrs(record: Readonly<Record<string, AttrValue>>, path: IRPath, label: string): void {
    const keys = Object.keys(record).sort();
    this.value(path, `${label} keys`, `[${keys.map((k) => JSON.stringify(k)).join(", ")}]`);
    for (const k of keys) this.attrValue(record[k], indexPath(path, k), `${label} ${JSON.stringify(k)}`);
  }

  private attrValue(v: AttrValue | undefined, path: IRPath, label: string): void {
    if (typeof v === "string") return this.value(path, label, JSON.stringify(v));
    if (typeof v === "number") return this.value(path, label, formatNumber(v));
    if (typeof v === "boolean") return this.value(path, label, v ? "True" : "False");
    if (Array.isArray(v)) {
      this.value(path, `${label} length`, String(v.length));
      v.forEach((x: AttrValue, i: number) => this.attrValue(x, indexPath(path, i), label));
      return;
    }
    if (isExprNode(v)) return this.expr(v, path, label);
    if (typeof v === "object" && v !== null) return this.attrs(v as Record<string, AttrValue>, path, label);
    this.value(path, label, `<${typeof v}>`);
  }

  // -------------------------------------------------------------------------------------------
  // Statements

  stmt(s: Stmt, path: IRPath): void {
    const kind = kindOf(s);
    switch (s.kind) {
      case "BufferStore":
        this.value(path, "statement kind", s.kind);
        this.useBuffer(s.buffer, fieldPath(path, "buffer"));
        this.expr(s.value, fieldPath(path, "value"), "stored value");
        this.count(path, "number of store indices", s.indices.length);
        s.indices.forEach((x, i) => this.expr(x, indexPath(fieldPath(path, "indices"), i), "store index"));
        this.value(path, "store predicate", s.predicate === undefined ? "absent" : "present");
        if (s.predicate !== undefined) this.expr(s.predicate, fieldPath(path, "predicate"), "store predicate");
        return;
      case "SeqStmt":
        this.value(path, "statement kind", s.kind);
        this.count(path, "number of statements", s.seq.length);
        s.seq.forEach((c, i) => this.stmt(c, indexPath(path, i)));
        return;
      case "IfThenElse":
        this.value(path, "statement kind", s.kind);
        this.expr(s.condition, fieldPath(path, "condition"), "if condition");
        this.stmt(s.thenCase, fieldPath(path, "then"));
        this.value(path, "else branch", s.elseCase ? "present" : "absent");
        if (s.elseCase) this.stmt(s.elseCase, fieldPath(path, "else"));
        return;
      case "For": {
        const p = childPath(path, `.for(${s.loopVar?.name})`);
        this.value(p, "statement kind", s.kind);
        this.defineVar(s.loopVar, fieldPath(p, "loopVar"), "loop var");
        this.expr(s.min, fieldPath(p, "min"), "loop min");
        this.expr(s.extent, fieldPath(p, "extent"), "loop extent");
        this.value(p, "loop step", s.step === undefined ? "absent" : "present");
        if (s.step !== undefined) this.expr(s.step, fieldPath(p, "step"), "loop step");
        this.value(p, "loop kind", s.forKind);
        this.value(p, "loop thread tag", s.threadTag ?? "none");
        this.attrs(s.annotations, fieldPath(p, "annotations"), "loop annotation");
        this.stmt(s.body, fieldPath(p, "body"));
        return;
      }
      case "While":
        this.value(path, "statement kind", s.kind);
        this.expr(s.condition, fieldPath(path, "condition"), "while condition");
        return this.stmt(s.body, fieldPath(path, "body"));
      case "Evaluate":
        this.value(path, "statement kind", s.kind);
        return this.expr(s.value, fieldPath(path, "value"), "evaluated value");
      case "LetStmt":
        this.value(path, "statement kind", s.kind);
        this.defineVar(s.variable, fieldPath(path, "variable"), "let var");
        this.expr(s.value, fieldPath(path, "value"), "let value");
        return this.stmt(s.body, fieldPath(path, "body"));
      case "Allocate":
      case "DeclBuffer":
        this.value(path, "statement kind", s.kind);
        this.defineBuffer(s.buffer, fieldPath(path, "buffer"));
        return this.stmt(s.body, fieldPath(path, "body"));
      case "AttrStmt":
        this.value(path, "statement kind", s.kind);
        this.value(path, "attr key", JSON.stringify(s.key));
        this.value(path, "attr subject", s.node !== undefined ? "var" : s.subject !== undefined ? "expr" : "none");
        if (s.node !== undefined) this.useVar(s.node, fieldPath(path, "node"), "attr subject");
        else if (s.subject !== undefined) this.expr(s.subject, fieldPath(path, "subject"), "attr subject");
        this.expr(s.value, fieldPath(path, "value"), "attr value");
        return this.stmt(s.body, fieldPath(path, "body"));
      case "BlockRealize":
        return this.blockRealize(s, path);
      default:
        throw new IRError(
          `structural comparison: expected a statement at ${renderPath(path)}, got ${kind === undefined ? describeValue(s) : `a node of kind "${kind}"`}`,
        );
    }
  }

  private blockRealize(s: BlockRealize, path: IRPath): void {
    const p = childPath(path, `.block(${JSON.stringify(s.block?.name)})`);
    this.value(p, "statement kind", s.kind);
    this.count(p, "number of block iter bindings", s.iterValues.length);
    s.iterValues.forEach((x, i) => this.expr(x, indexPath(fieldPath(p, "iterValues"), i), "block iter binding"));
    this.expr(s.predicate, fieldPath(p, "predicate"), "block predicate");
    this.blockFields(s.block, p);
  }

  private block(b: Block, path: IRPath): void {
    this.value(path, "node kind", "Block");
    this.blockFields(b, path);
  }

  private blockFields(b: Block, p: IRPath): void {
    if (kindOf(b) !== "Block") throw new IRError(`structural comparison: expected a Block at ${renderPath(p)}, got ${describeValue(b)}`);
    if (this.opts.compareNames) this.value(p, BLOCK_NAME_LABEL, JSON.stringify(b.name));
    this.count(p, "number of block iter vars", b.iterVars.length);
    b.iterVars.forEach((iv, i) => {
      const ip = indexPath(fieldPath(p, "iterVars"), i);
      this.defineVar(iv.var, ip, "block iter var");
      this.range(iv.dom, fieldPath(ip, "dom"), "block iter domain");
      this.value(ip, "block iter type", iv.iterType);
    });
    this.count(p, "number of allocated buffers", b.allocBuffers.length);
    b.allocBuffers.forEach((x, i) => this.defineBuffer(x, indexPath(fieldPath(p, "allocBuffers"), i)));
    this.count(p, "number of match buffers", b.matchBuffers.length);
    b.matchBuffers.forEach((m, i) => {
      const mp = indexPath(fieldPath(p, "matchBuffers"), i);
      this.region(m.source, fieldPath(mp, "source"));
      this.defineBuffer(m.buffer, fieldPath(mp, "buffer"));
    });
    this.count(p, "number of read regions", b.reads.length);
    b.reads.forEach((r, i) => this.region(r, indexPath(fieldPath(p, "reads"), i)));
    this.count(p, "number of write regions", b.writes.length);
    b.writes.forEach((r, i) => this.region(r, indexPath(fieldPath(p, "writes"), i)));
    this.attrs(b.annotations, fieldPath(p, "annotations"), "block annotation");
    this.value(p, "block init", b.init ? "present" : "absent");
    if (b.init) this.stmt(b.init, fieldPath(p, "init"));
    this.stmt(b.body, fieldPath(p, "body"));
  }

  // -------------------------------------------------------------------------------------------
  // Functions and modules

  func(f: PrimFunc, path: IRPath): void {
    if (kindOf(f) !== "PrimFunc") throw new IRError(`structural comparison: expected a PrimFunc at ${renderPath(path)}, got ${describeValue(f)}`);
    this.count(path, "number of parameters", f.params.length);
    f.params.forEach((param, i) => {
      const pp = indexPath(fieldPath(path, "params"), i);
      this.defineVar(param, pp, "parameter");
      const buffer = f.bufferMap.get(param);
      this.value(pp, "parameter kind", buffer === undefined ? "scalar" : "buffer");
      if (buffer !== undefined) this.defineBuffer(buffer, fieldPath(pp, "buffer"));
    });
    this.attrs(f.attrs, fieldPath(path, "attrs"), "function attr");
    this.stmt(f.body, fieldPath(path, "body"));
  }

  private module(m: IRModule): void {
    const names = [...m.functions.keys()].sort();
    this.value(undefined, "module functions", `[${names.join(", ")}]`);
    for (const name of names) this.func(m.functions.get(name)!, rootPath(name));
  }
}
