/**
 * Turns Python-subset expressions into TensorIR expressions, resolving names through the scope
 * stack. Errors from the IR constructors (dtype mismatches and the like) are re-raised at the
 * position of the expression that caused them.
 */
import type { Buffer } from "../buffer.js";
import { type DType, isBool, isIntegral, lanesOf } from "../dtype.js";
import { IRError } from "../errors.js";
import { type BinaryOp, type PrimExpr, binary, bufferLoad, cast, intImm, not, ramp, stringImm, variable } from "../expr.js";
import { checkIntrinsicCall } from "../intrinsics.js";
import { type PyExpr, isName } from "./ast.js";
import { ParseFailure, type SourcePos, fail } from "./errors.js";
import { type ExprValue, isLiteral, literal, literalToExpr, valueToExpr, valuesToExprs } from "./literal.js";
import type { ScopeStack } from "./scope.js";
import { callTFunction, dtypeArg } from "./t-functions.js";
import { bindArguments } from "./arguments.js";
import type { ModuleFunctions } from "./module-functions.js";
import { bufferAttribute, bufferMethodCall, bufferShapeItem } from "./buffer-members.js";
import { extentOf } from "./extent.js";
import { lanesOfExpr } from "../vscale.js";
import { subscriptItems } from "./regions.js";

const ARITH: Partial<Record<string, BinaryOp>> = { "+": "add", "-": "sub", "*": "mul", "//": "floordiv", "%": "floormod" };
/** Python's bit operators build TVM's bitwise intrinsics, as `PrimExpr.__rshift__` does. */
const BITWISE: Partial<Record<string, string>> = {
  "<<": "shift_left",
  ">>": "shift_right",
  "&": "bitwise_and",
  "|": "bitwise_or",
  "^": "bitwise_xor",
};
const COMPARE: Record<string, BinaryOp> = { "<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne" };

type Node<K extends PyExpr["kind"]> = Extract<PyExpr, { kind: K }>;

export class ExprEvaluator {
  /**
   * When set, an unknown name becomes a new int32 variable of the function (symbolic shapes such
   * as `T.Buffer((n, m))` or `T.match_buffer(a, (n,))`).
   */
  autoDefineNames = false;
  /** The dtypes of the function's scalar parameters: a name auto-defined before its parameter takes its dtype. */
  paramDTypes: ReadonlyMap<string, string> = new Map();
  /** The functions of the enclosing `@I.ir_module`, which calls may name (`Module.f(...)`). */
  module: ModuleFunctions | undefined;

  /** Closure values being evaluated (to refuse one that refers to itself). */
  private readonly expanding = new Set<string>();

  constructor(readonly scopes: ScopeStack) {}

  /** Evaluates `e`, keeping bare literals untyped. */
  value(e: PyExpr): ExprValue {
    try {
      return this.valueUnchecked(e);
    } catch (err) {
      if (err instanceof IRError) fail(err.message, e.pos);
      throw err;
    }
  }

  /** Evaluates `e` to an expression; a literal takes `hint`'s dtype where it can. */
  prim(e: PyExpr, hint?: DType): PrimExpr {
    return valueToExpr(this.value(e), hint);
  }

  /** An integer expression (index, extent, shape dimension). */
  index(e: PyExpr, what = "an index"): PrimExpr {
    const v = this.prim(e, "int32");
    if (!isIntegral(v.dtype)) fail(`${what} must be an integer expression, got ${v.dtype}`, e.pos);
    return v;
  }

  /** A boolean condition. */
  condition(e: PyExpr, what = "a condition"): PrimExpr {
    const v = this.prim(e);
    if (!isBool(v.dtype)) fail(`${what} must be a boolean expression, got ${v.dtype}`, e.pos);
    return v;
  }

  /** The test of an `if` or `while` statement: an integer scalar is truthy when non-zero, as in Python (`x != 0`). */
  statementCondition(e: PyExpr, statement: "if" | "while"): PrimExpr {
    const v = this.prim(e);
    if (isIntegral(v.dtype) && lanesOf(v.dtype) === 1) return binary("ne", v, intImm(0, v.dtype));
    if (!isBool(v.dtype)) fail(`${statement === "if" ? "an if" : "a while"} condition must be a boolean or integer expression, got ${v.dtype}`, e.pos);
    return v;
  }

  /** The buffer a name refers to, or a clear error. */
  buffer(e: PyExpr): Buffer {
    if (e.kind !== "Name") fail("expected a buffer name", e.pos);
    const b = this.scopes.lookup(e.id);
    if (b === undefined) fail(`unknown buffer "${e.id}"`, e.pos);
    if (b.kind !== "buffer") fail(`"${e.id}" is not a buffer`, e.pos);
    return b.buffer;
  }

  /** A string literal argument (dtype names, scopes, thread tags). */
  string(e: PyExpr, what: string): string {
    if (e.kind === "Name") {
      const b = this.scopes.lookup(e.id);
      if (b?.kind === "string") return b.value;
      // TVM reads such a name from the Python closure; without a value for it, say which name.
      if (b === undefined) fail(`unknown name "${e.id}": ${what} must be a string literal or a name bound to one (ParseOptions.closure)`, e.pos);
    }
    if (e.kind === "Subscript") {
      const item = this.tupleItem(e);
      if (item !== undefined) return this.string(item, what);
    }
    if (e.kind !== "String") fail(`${what} must be a string literal`, e.pos);
    return e.value;
  }

  /** `dtypes[0]` of a tuple or list the closure gives: the item's node, or undefined for another subscript. */
  private tupleItem(e: Node<"Subscript">): PyExpr | undefined {
    const items = e.indices.length === 1 ? this.tupleItems(e.value) : undefined;
    if (items === undefined) return undefined;
    const i = this.constInt(e.indices[0]!, "a tuple index");
    const item = items[i < 0 ? items.length + i : i];
    if (item === undefined) fail(`index ${i} is out of range for a tuple of ${items.length} items`, e.pos);
    return item;
  }

  /** An integer known when parsing (vector lanes, alignments). */
  constInt(e: PyExpr, what: string): number {
    const v = this.value(e);
    if (isLiteral(v) && v.type === "int") return v.value;
    if (!isLiteral(v) && v.kind === "IntImm") return v.value;
    fail(`${what} must be an integer constant`, e.pos);
  }

  /** The lanes of a vector: a constant, or `T.vscale() * k` for scalable lanes (-k, see `DTypeInfo.lanes`). */
  lanes(e: PyExpr, what: string): number {
    const v = this.value(e);
    const lanes = isLiteral(v) ? (v.type === "int" ? v.value : undefined) : lanesOfExpr(v);
    if (lanes === undefined) fail(`${what} must be an integer constant or T.vscale() * k`, e.pos);
    return lanes;
  }

  /** Buffer indices; slices become `T.Ramp` vector indices. */
  indices(buffer: Buffer, written: readonly PyExpr[], pos: SourcePos): PrimExpr[] {
    const items = this.spliced(written).flatMap((item) => this.tupleItems(item) ?? [item]);
    if (items.length !== buffer.shape.length) {
      fail(
        `buffer "${buffer.name}" has ${buffer.shape.length} dimension${buffer.shape.length === 1 ? "" : "s"} but ${items.length} ind${items.length === 1 ? "ex was" : "ices were"} given`,
        pos,
      );
    }
    return items.map((item) => (item.kind === "Slice" ? this.sliceIndex(item) : this.index(item)));
  }

  private sliceIndex(s: Node<"Slice">): PrimExpr {
    if (s.lower === undefined || s.upper === undefined) fail("a vector index needs both bounds, as in A[0:4]", s.pos);
    const lo = this.index(s.lower);
    const hi = this.index(s.upper);
    const stride = s.step === undefined ? 1 : this.constInt(s.step, "a slice step");
    const lanes = lanesOfExpr(extentOf(lo, hi));
    if (lanes === undefined) fail("the length of a vector index must be a constant or T.vscale() * k", s.pos);
    if (lanes < 0 && stride !== 1) fail("a scalable vector index takes no step", s.pos);
    // One element is a scalar index, as TVM's Buffer.__getitem__ makes it.
    if (lanes > 0 && Math.ceil(lanes / stride) === 1) return lo;
    return ramp(lo, stride, lanes < 0 ? lanes : Math.ceil(lanes / stride));
  }

  private valueUnchecked(e: PyExpr): ExprValue {
    switch (e.kind) {
      case "Number":
        return literal(e.value, e.isFloat ? "float" : "int");
      case "Constant":
        if (e.value === null) fail("None is not an expression", e.pos);
        return literal(e.value ? 1 : 0, "bool");
      case "String":
        return stringImm(e.value);
      case "Name":
        return this.name(e);
      case "Attribute":
        return this.attribute(e);
      case "Subscript": {
        const member = this.bufferMember(e.value);
        if (member !== undefined) {
          if (e.indices.length !== 1) fail(`${member.buffer.name}.${member.member} takes one index`, e.pos);
          return bufferShapeItem(member.buffer, member.member, this.constInt(e.indices[0]!, "the index"), e.pos);
        }
        const tuple = e.value.kind === "Name" ? this.scopes.lookup(e.value.id) : undefined;
        if (tuple?.kind === "expr" && e.indices.length === 1) return this.closureItem(e, tuple.text, tuple.node);
        const buf = this.buffer(e.value);
        return bufferLoad(buf, this.indices(buf, subscriptItems(e.indices), e.pos));
      }
      case "Call": {
        if (e.func.kind === "Call" && isName(e.func.func, "getattr")) return this.value({ ...e, func: this.getattrCallee(e.func) });
        const method = this.bufferMember(e.func);
        if (method !== undefined) return bufferMethodCall(this, method.buffer, method.member, e);
        const closure = e.func.kind === "Name" ? this.scopes.lookup(e.func.id) : undefined;
        if (closure?.kind === "expr") return this.closureCall(e, closure.text, closure.node);
        if (e.func.kind === "Name" && e.func.id === "len" && closure === undefined) return this.length(e);
        if (e.func.kind === "Attribute" && e.func.attr === "astype") return this.astype(e, e.func.value);
        return callTFunction(this, e);
      }
      case "BinOp":
        return this.binOp(e);
      case "Compare": {
        const [a, b] = valuesToExprs(this.value(e.left), this.value(e.right));
        return binary(COMPARE[e.op]!, a, b);
      }
      case "BoolOp": {
        const operands = e.values.map((v) => this.prim(v));
        return operands.slice(1).reduce<PrimExpr>((acc, x) => binary(e.op, acc, x), operands[0]!);
      }
      case "UnaryOp":
        return this.unary(e);
      case "IfExp":
        return this.ifExp(e);
      case "Lambda":
        return fail("a lambda is only allowed as the combiner of T.comm_reducer", e.pos);
      case "Slice":
        return fail("a slice is only allowed as a buffer index", e.pos);
      case "Starred":
        return fail("a starred expression is only allowed inside a shape, as in (128, *dims)", e.pos);
      case "Tuple":
      case "List":
      case "Dict":
        return fail(`expected an expression, found a ${e.kind.toLowerCase()}`, e.pos);
    }
  }

  private name(e: Node<"Name">): ExprValue {
    const b = this.scopes.lookup(e.id);
    if (b === undefined) {
      if (this.autoDefineNames) {
        const v = variable(e.id, this.paramDTypes.get(e.id) ?? "int32");
        this.scopes.defineGlobal(e.id, { kind: "var", var: v });
        return v;
      }
      fail(`unknown name "${e.id}"`, e.pos);
    }
    switch (b.kind) {
      case "var":
      case "handle":
        return b.var;
      case "number":
        return literal(b.value, b.isFloat ? "float" : "int");
      case "string":
        return stringImm(b.value);
      case "expr":
        return this.closureExpr(e, b.text, b.node);
      case "value":
        return b.value;
      case "buffer":
        return fail(`buffer "${e.id}" cannot be used as a value; index it, as in ${e.id}[...]`, e.pos);
      case "macro":
      case "broken macro":
        return fail(`macro "${e.id}" is no value; call it as a statement, as in ${e.id}(...)`, e.pos);
    }
  }

  /** A closure value given as TVMScript text; its errors are reported at the use, naming the value. */
  private closureExpr(use: Node<"Name">, text: string, node: PyExpr): ExprValue {
    if (this.expanding.has(use.id)) fail(`closure value ${use.id} = ${text} refers to itself`, use.pos);
    this.expanding.add(use.id);
    try {
      return this.value(node);
    } catch (err) {
      if (err instanceof ParseFailure) fail(`closure value ${use.id} = ${text}: ${err.reason}`, use.pos);
      throw err;
    } finally {
      this.expanding.delete(use.id);
    }
  }

  /**
   * `f(args)` where the closure gives `f` as a `T.*` function (`op = T.Add`) or as a lambda
   * (a Python helper `def f(a, b): return <expr>`): the call of that function, or the lambda's body
   * with its parameters bound to the evaluated arguments.
   */
  private closureCall(call: Node<"Call">, text: string, fn: PyExpr): ExprValue {
    const name = (call.func as Node<"Name">).id;
    if (fn.kind !== "Lambda") return this.value({ ...call, func: fn });
    if (call.keywords.length > 0 || call.args.length !== fn.params.length) {
      fail(`closure function ${name} = ${text} takes ${fn.params.length} positional arguments, got ${call.args.length}`, call.pos);
    }
    const args = call.args.map((a) => this.value(a));
    return this.scopes.within(() => {
      // A string argument stays a string, so that the body may use it as a dtype (`T.reinterpret(dt, v)`).
      fn.params.forEach((p, i) => {
        const arg = args[i]!;
        this.scopes.define(p, !isLiteral(arg) && arg.kind === "StringImm" ? { kind: "string", value: arg.value } : { kind: "value", value: arg });
      });
      return this.closureExpr(call.func as Node<"Name">, text, fn.body);
    });
  }

  /**
   * The items of a list or tuple display with `*dims` spliced in, where the closure gives `dims`
   * as a tuple or list (`dims = (128, 64)`).
   */
  spliced(items: readonly PyExpr[]): PyExpr[] {
    return items.flatMap((item) => {
      if (item.kind !== "Starred") return [item];
      const member = this.bufferMember(item.value);
      if (member?.member === "shape") {
        // `*A.shape`: A.shape[0], A.shape[1], ...
        return member.buffer.shape.map(
          (_, i): PyExpr => ({ kind: "Subscript", value: item.value, indices: [{ kind: "Number", value: i, isFloat: false, pos: item.pos }], pos: item.pos }),
        );
      }
      const bound = item.value.kind === "Name" ? this.scopes.lookup(item.value.id) : undefined;
      if (bound?.kind !== "expr" || (bound.node.kind !== "Tuple" && bound.node.kind !== "List")) {
        fail("only a buffer's shape, or a tuple or list given in the closure, can be spliced in with *", item.pos);
      }
      return bound.node.elts;
    });
  }

  /** The items of a name bound to a tuple or list (`iters` of `for iters in T.grid(...)`, a closure's `dims`), or undefined. */
  tupleItems(e: PyExpr): readonly PyExpr[] | undefined {
    const bound = e.kind === "Name" ? this.scopes.lookup(e.id) : undefined;
    return bound?.kind === "expr" && (bound.node.kind === "Tuple" || bound.node.kind === "List") ? bound.node.elts : undefined;
  }

  /** `getattr(T, name)` with `name` a string (as a closure may give it): the attribute `T.<name>`. */
  private getattrCallee(call: Node<"Call">): PyExpr {
    const [module, name] = call.args;
    if (call.args.length !== 2 || call.keywords.length > 0 || !isName(module!, "T")) fail("getattr is supported only as getattr(T, name)", call.pos);
    const attr = this.string(name!, "the name given to getattr");
    if (!/^[A-Za-z_]\w*$/.test(attr)) fail(`getattr(T, "${attr}"): not a TVMScript name`, name!.pos);
    return { kind: "Attribute", value: module, attr, pos: call.pos };
  }

  /** `x.astype("float16")`: TVM's expression method, a cast. */
  private astype(call: Node<"Call">, operand: PyExpr): ExprValue {
    const args = bindArguments(call, "astype", ["dtype"], 1);
    return cast(dtypeArg(this, args.get("dtype")!), this.prim(operand));
  }

  /** Python's `len(x)` of a closure tuple or list, or of a buffer's `shape`/`strides`: an int32 constant. */
  private length(call: Node<"Call">): ExprValue {
    if (call.args.length !== 1 || call.keywords.length > 0) fail("len takes one argument", call.pos);
    const [x] = call.args;
    const member = this.bufferMember(x!);
    if (member?.member === "shape" || member?.member === "strides") return literal(member.buffer[member.member].length, "int");
    const bound = x!.kind === "Name" ? this.scopes.lookup(x!.id) : undefined;
    if (bound?.kind === "expr" && (bound.node.kind === "Tuple" || bound.node.kind === "List")) return literal(bound.node.elts.length, "int");
    return fail("len takes a buffer's shape or strides, or a tuple or list given in the closure", x!.pos);
  }

  /** `dims[i]` where the closure gives `dims` as a tuple or list (`dims = (128, 64)`). */
  private closureItem(e: Node<"Subscript">, text: string, node: PyExpr): ExprValue {
    const name = (e.value as Node<"Name">).id;
    if (node.kind !== "Tuple" && node.kind !== "List") fail(`closure value ${name} = ${text} cannot be indexed`, e.pos);
    const i = this.constInt(e.indices[0]!, "a tuple index");
    const item = node.elts[i < 0 ? node.elts.length + i : i];
    if (item === undefined) fail(`${name}[${i}] is out of range: ${name} = ${text} has ${node.elts.length} items`, e.pos);
    return this.closureExpr(e.value as Node<"Name">, text, item);
  }

  private attribute(e: Node<"Attribute">): ExprValue {
    if (e.value.kind === "Name" && e.value.id === "T") {
      fail(`T.${e.attr} is not a value here; did you mean to call it, as in T.${e.attr}(...)?`, e.pos);
    }
    const member = this.bufferMember(e);
    if (member !== undefined) return bufferAttribute(member.buffer, member.member, e.pos);
    fail(`unsupported attribute ".${e.attr}"`, e.pos);
  }

  /** `A.<member>` where `A` names a buffer. */
  bufferMember(e: PyExpr): { buffer: Buffer; member: string } | undefined {
    if (e.kind !== "Attribute") return undefined;
    // `A.ty.shape`: today's TVM reaches a buffer's fields through its type; the same members.
    if (e.value.kind === "Attribute" && e.value.attr === "ty") return this.bufferMember({ ...e, value: e.value.value });
    if (e.value.kind !== "Name") return undefined;
    const b = this.scopes.lookup(e.value.id);
    return b?.kind === "buffer" ? { buffer: b.buffer, member: e.attr } : undefined;
  }

  private binOp(e: Node<"BinOp">): ExprValue {
    const left = this.value(e.left);
    const right = this.value(e.right);
    // Python divides two number literals itself (`T.float32(1 / 27)`): a float, as TVM's parser sees it.
    if (e.op === "/" && isLiteral(left) && isLiteral(right) && right.value !== 0) return literal(left.value / right.value, "float");
    const [a, b] = valuesToExprs(left, right);
    if (e.op === "/") {
      if (isIntegral(a.dtype) && isIntegral(b.dtype)) {
        fail('"/" on integers is ambiguous in TVMScript: use "//" (floor division) or T.truncdiv', e.opPos);
      }
      return binary("div", a, b);
    }
    const bitwise = BITWISE[e.op];
    if (bitwise !== undefined) {
      if (!isIntegral(a.dtype) || !isIntegral(b.dtype)) fail(`operator "${e.op}" needs integer operands, got ${a.dtype} and ${b.dtype}`, e.opPos);
      return checkIntrinsicCall(bitwise, [a, b]);
    }
    const op = ARITH[e.op];
    if (op === undefined) fail(`operator "${e.op}" is not supported in TVMScript`, e.opPos);
    return binary(op, a, b);
  }

  /** `a if c else b`: a constant condition picks its branch, any other is T.if_then_else (as TVM). */
  private ifExp(e: Node<"IfExp">): ExprValue {
    const test = this.value(e.test);
    const constant = isLiteral(test) ? test.value : test.kind === "IntImm" && test.dtype === "bool" ? test.value : undefined;
    if (constant !== undefined) return this.value(constant !== 0 ? e.body : e.orelse);
    const cond = valueToExpr(test);
    if (!isBool(cond.dtype)) fail(`the condition of "a if c else b" must be a boolean, got ${cond.dtype}`, e.test.pos);
    const [a, b] = valuesToExprs(this.value(e.body), this.value(e.orelse));
    return checkIntrinsicCall("if_then_else", [cond, a, b]);
  }

  private unary(e: Node<"UnaryOp">): ExprValue {
    const v = this.value(e.operand);
    switch (e.op) {
      case "not":
        return not(valueToExpr(v));
      case "+":
        return v;
      case "-":
        if (isLiteral(v)) {
          if (v.type === "bool") fail("cannot negate a boolean", e.pos);
          return literal(-v.value, v.type);
        }
        // TVM spells negation as multiplication by -1.
        return binary("mul", v, literalToExpr(literal(-1, "int"), v.dtype));
      case "~": {
        const x = valueToExpr(v);
        if (!isIntegral(x.dtype)) fail(`operator "~" needs an integer operand, got ${x.dtype}`, e.pos);
        return checkIntrinsicCall("bitwise_not", [x]);
      }
    }
  }
}
