/** Structural equality and the first structural difference between two IR nodes. */
import type { Buffer } from "../buffer.js";
import { IRError } from "../errors.js";
import type { Var } from "../expr.js";
import { CanonicalWriter, type TokenSink, type TokenSubject } from "./canonical-writer.js";
import { type StructuralNode, kindOf } from "./node-kinds.js";
import { type StructuralOptions, resolveOptions } from "./options.js";
import { type IRPath, renderPath } from "./path.js";
import { describeExpr as renderExprForDiff } from "../printer/expr-text.js";

export interface StructuralDifference {
  /** Where, in the left-hand tree, e.g. `main.body.block("root").body[1].for(j).body`. */
  readonly path: string;
  /** What differs, e.g. `loop extent 2048 vs 1024` or `lhs: T.float32(0) vs rhs: T.float32(1)`. */
  readonly description: string;
  /** `path: description`. */
  readonly message: string;
}

interface Token {
  readonly key: string;
  readonly path: IRPath | undefined;
  readonly subject: TokenSubject;
}

class TokenRecorder implements TokenSink {
  readonly tokens: Token[] = [];
  token(key: string, path: IRPath | undefined, subject: TokenSubject): void {
    this.tokens.push({ key, path, subject });
  }
}

interface Side {
  readonly tokens: readonly Token[];
  readonly vars: readonly Var[];
  readonly buffers: readonly Buffer[];
}

function record(node: StructuralNode, opts: StructuralOptions | undefined, what: string): Side {
  const recorder = new TokenRecorder();
  const writer = new CanonicalWriter(recorder, resolveOptions(opts));
  writer.writeRoot(node, what);
  return { tokens: recorder.tokens, vars: writer.vars, buffers: writer.buffers };
}

function show(s: TokenSubject): string {
  switch (s.kind) {
    case "expr":
      return renderExprForDiff(s.expr);
    case "var":
      return s.v.name;
    case "buffer":
      return `buffer ${s.buffer.name}`;
    case "value":
      return s.text;
  }
}

function labelOf(s: TokenSubject): string | undefined {
  return s.kind === "buffer" ? "buffer" : s.label;
}

function dtypeOf(s: TokenSubject): string | undefined {
  if (s.kind === "expr") return s.expr.dtype;
  if (s.kind === "var") return s.v.dtype;
  if (s.kind === "buffer") return s.buffer.dtype;
  return undefined;
}

function describeVars(a: TokenSubject & { kind: "var" }, b: TokenSubject & { kind: "var" }, lhs: Side, rhs: Side): string {
  const prefix = a.label !== undefined && a.label === b.label ? `${a.label} ` : "";
  if (a.fresh && b.fresh) {
    if (a.v.dtype !== b.v.dtype) return `${prefix}var dtype ${a.v.dtype} vs ${b.v.dtype} (${a.v.name} vs ${b.v.name})`;
    return `${prefix}var name ${a.v.name} vs ${b.v.name}`;
  }
  if (a.fresh) return `${prefix}var ${a.v.name} vs ${b.v.name}: rhs ${b.v.name} is already mapped to lhs ${lhs.vars[b.index]?.name}`;
  if (b.fresh) return `${prefix}var ${a.v.name} vs ${b.v.name}: lhs ${a.v.name} is already mapped to rhs ${rhs.vars[a.index]?.name}`;
  return `${prefix}var ${a.v.name} mapped to ${rhs.vars[a.index]?.name}, but rhs has ${b.v.name} here`;
}

function describeBuffers(a: TokenSubject & { kind: "buffer" }, b: TokenSubject & { kind: "buffer" }, lhs: Side, rhs: Side): string {
  if (a.fresh && b.fresh) return `buffer name ${a.buffer.name} vs ${b.buffer.name}`;
  if (a.fresh) return `buffer ${a.buffer.name} vs ${b.buffer.name}: rhs ${b.buffer.name} is already mapped to lhs ${lhs.buffers[b.index]?.name}`;
  if (b.fresh) return `buffer ${a.buffer.name} vs ${b.buffer.name}: lhs ${a.buffer.name} is already mapped to rhs ${rhs.buffers[a.index]?.name}`;
  return `buffer ${a.buffer.name} mapped to ${rhs.buffers[a.index]?.name}, but rhs has ${b.buffer.name} here`;
}

function describe(a: TokenSubject, b: TokenSubject, lhs: Side, rhs: Side): string {
  if (a.kind === "var" && b.kind === "var") return describeVars(a, b, lhs, rhs);
  if (a.kind === "buffer" && b.kind === "buffer") return describeBuffers(a, b, lhs, rhs);
  let left = show(a);
  let right = show(b);
  if (left === right) {
    const [da, db] = [dtypeOf(a), dtypeOf(b)];
    left += da !== undefined ? ` (dtype ${da})` : ` (${a.kind})`;
    right += db !== undefined ? ` (dtype ${db})` : ` (${b.kind})`;
  }
  const label = labelOf(a);
  if (label !== undefined && label === labelOf(b)) return `${label} ${left} vs ${right}`;
  const side = (s: TokenSubject, text: string): string => (s.kind === "value" ? `${s.label} ${text}` : text);
  return `lhs: ${side(a, left)} vs rhs: ${side(b, right)}`;
}

/** The first structural difference of `a` and `b`, or `undefined` when they are structurally equal. */
export function structuralDiff(a: StructuralNode, b: StructuralNode, opts?: StructuralOptions): StructuralDifference | undefined {
  const lhs = record(a, opts, "structuralDiff (lhs)");
  const rhs = record(b, opts, "structuralDiff (rhs)");
  const n = Math.min(lhs.tokens.length, rhs.tokens.length);
  for (let i = 0; i < n; i++) {
    const x = lhs.tokens[i]!;
    const y = rhs.tokens[i]!;
    if (x.key !== y.key) return difference(renderPath(x.path), describe(x.subject, y.subject, lhs, rhs));
  }
  if (lhs.tokens.length === rhs.tokens.length) return undefined;
  // Unreachable for well-formed trees (counts are written before lists); kept as a safe fallback.
  const longer = lhs.tokens.length > rhs.tokens.length ? lhs : rhs;
  const extra = longer.tokens[n]!;
  return difference(renderPath(extra.path), `${longer === lhs ? "lhs" : "rhs"} has more: ${show(extra.subject)}`);
}

function difference(path: string, description: string): StructuralDifference {
  return { path, description, message: path === "" ? description : `${path}: ${description}` };
}

/**
 * Structural equality: same structure, dtypes, constants, annotations and buffer fields; variables,
 * buffers (and blocks) may be renamed consistently. Free variables map on first use.
 */
export function structuralEqual(a: StructuralNode, b: StructuralNode, opts?: StructuralOptions): boolean {
  if (a === b && kindOf(a) !== undefined) return true;
  return structuralDiff(a, b, opts) === undefined;
}

/** Throws an `IRError` describing the first difference unless `a` and `b` are structurally equal. */
export function assertStructuralEqual(a: StructuralNode, b: StructuralNode, opts?: StructuralOptions): void {
  const d = structuralDiff(a, b, opts);
  if (d !== undefined) throw new IRError(`structural mismatch at ${d.message}`);
}
