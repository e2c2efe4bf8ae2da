/**
 * `detectIterMap`: recognises index expressions as independent affine combinations of split and
 * fused input iterators (TVM's `DetectIterMap`), with an optional predicate such as
 * `i0 * 32 + i1 < 100` (from a non-divisible split) that narrows a fused iterator's extent.
 */
import type { PrimExpr, Var } from "../../expr.js";
import type { Range } from "../../stmt.js";
import { describeExpr as renderExprForDiff } from "../../printer/expr-text.js";
import { checkCoverage } from "./coverage.js";
import { type InputIterator, IterMapFailure, IterMapRewriter } from "./rewriter.js";
import { type IterSum, iterSplit, iterSum, markExtent } from "./types.js";

export interface DetectIterMapOptions {
  /** Also require the map to reach every combination exactly once (every input iterator used fully). */
  readonly requireBijective?: boolean;
}

export interface IterMapResult {
  /** One sum per index; empty when `errors` is not. */
  readonly indices: IterSum[];
  readonly errors: string[];
}

/** `lhs < bound` constraints of a predicate. */
interface Bound {
  readonly lhs: PrimExpr;
  readonly bound: number;
}

function failureMessage(e: unknown): string {
  if (e instanceof IterMapFailure) return e.message;
  throw e;
}

function readInputs(inputIters: ReadonlyMap<Var, Range>, errors: string[]): InputIterator[] {
  const inputs: InputIterator[] = [];
  for (const [v, r] of inputIters) {
    if (r.min.kind !== "IntImm" || r.extent.kind !== "IntImm") {
      errors.push(`iterator ${v.name}: only constant ranges are supported, got [${renderExprForDiff(r.min)}, +${renderExprForDiff(r.extent)})`);
    } else if (r.extent.value < 1) {
      errors.push(`iterator ${v.name}: extent ${r.extent.value} is empty`);
    } else {
      inputs.push({ v, min: r.min.value, extent: r.extent.value });
    }
  }
  return inputs;
}

function readPredicate(predicate: PrimExpr | undefined, errors: string[]): Bound[] {
  if (predicate === undefined) return [];
  const bounds: Bound[] = [];
  const visit = (p: PrimExpr): void => {
    if (p.kind === "IntImm" && p.value !== 0) return; // True
    if (p.kind === "Binary") {
      const constant = (e: PrimExpr): number | undefined => (e.kind === "IntImm" ? e.value : undefined);
      switch (p.op) {
        case "and":
          visit(p.a);
          visit(p.b);
          return;
        case "lt":
        case "le": {
          const c = constant(p.b);
          if (c !== undefined) return void bounds.push({ lhs: p.a, bound: p.op === "lt" ? c : c + 1 });
          break;
        }
        case "gt":
        case "ge": {
          const c = constant(p.a);
          if (c !== undefined) return void bounds.push({ lhs: p.b, bound: p.op === "gt" ? c : c + 1 });
          break;
        }
      }
    }
    errors.push(`predicate ${renderExprForDiff(p)} is not of the form "iterator expression < constant"`);
  };
  visit(predicate);
  return bounds;
}

/** Mark key → tighter extent, for each predicate bound on a whole (possibly fused) iterator. */
function extentOverrides(bounds: readonly Bound[], inputs: readonly InputIterator[], dtype: string, errors: string[]): Map<string, number> {
  const overrides = new Map<string, number>();
  const probe = new IterMapRewriter(inputs, dtype);
  for (const { lhs, bound } of bounds) {
    const where = `predicate ${renderExprForDiff(lhs)} < ${bound}`;
    try {
      const form = probe.linear(lhs);
      if (form.terms.length === 0) {
        if (form.base >= bound) errors.push(`${where} is always false`);
        continue;
      }
      const t = probe.fuse(form.terms, lhs);
      if (t.lower !== 1 || t.extent !== markExtent(t.mark)) {
        errors.push(`${where}: bounds only part of an iterator`);
        continue;
      }
      const limit = Math.ceil((bound - form.base) / t.scale);
      if (limit <= 0) errors.push(`${where} is always false`);
      const key = probe.keyOf(t.mark);
      overrides.set(key, Math.min(limit, overrides.get(key) ?? Infinity));
    } catch (e) {
      errors.push(`${where}: ${failureMessage(e)}`);
    }
  }
  return overrides;
}

export function detectIterMap(
  indices: readonly PrimExpr[],
  inputIters: ReadonlyMap<Var, Range>,
  predicate?: PrimExpr,
  opts: DetectIterMapOptions = {},
): IterMapResult {
  const errors: string[] = [];
  const bijective = opts.requireBijective === true;
  const dtype = indices[0]?.dtype ?? "int32";
  const inputs = readInputs(inputIters, errors);
  const bounds = readPredicate(predicate, errors);
  if (errors.length > 0) return { indices: [], errors };
  const overrides = extentOverrides(bounds, inputs, dtype, errors);
  if (errors.length > 0) return { indices: [], errors };

  const rewriter = new IterMapRewriter(inputs, dtype, overrides, !bijective);
  const sums: IterSum[] = [];
  indices.forEach((index, k) => {
    try {
      const form = rewriter.linear(index);
      if (form.terms.length === 0) {
        sums.push(iterSum([], form.base, dtype));
        return;
      }
      const t = rewriter.fuse(form.terms, index);
      sums.push(iterSum([iterSplit(t.mark, t.lower, t.extent, t.scale)], form.base, dtype));
    } catch (e) {
      // Messages about the index as a whole already start with it.
      const text = renderExprForDiff(index);
      const message = failureMessage(e);
      errors.push(`index ${k} (${text}): ${message.startsWith(`${text}: `) ? message.slice(text.length + 2) : message}`);
    }
  });
  if (errors.length > 0) return { indices: [], errors };

  const inputMarks = new Map(inputs.map((it) => [rewriter.inputMark(it.v), it.v.name] as const));
  errors.push(...checkCoverage(sums, rewriter.marksInCreationOrder(), inputMarks, bijective, (m) => rewriter.describeMark(m)));
  return errors.length > 0 ? { indices: [], errors } : { indices: sums, errors };
}

/**
 * Whether block bindings are affine in the loops around them (TVM's `affine_binding` flag): each
 * binding one (split or fused) iterator plus a constant, no loop digit used twice.
 */
export function isAffineBinding(bindings: readonly PrimExpr[], loopDomains: ReadonlyMap<Var, Range>, predicate?: PrimExpr): boolean {
  return detectIterMap(bindings, loopDomains, predicate).errors.length === 0;
}
