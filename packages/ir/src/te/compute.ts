/**
 * `te.compute`: a tensor defined element-wise by a callback over its indices.
 */
import { IRError } from "../errors.js";
import { type ExprLike, type PrimExpr, type Var, toExpr, variable } from "../expr.js";
import { forEachExpr, usesVar } from "../functor.js";
import { type Annotations, iterVar, rangeFromExtent } from "../stmt.js";
import { parameterList } from "../builder/param-names.js";
import { type ReduceExpr, isReduceAxis, isReduceExpr, reduceAxisRange, rejectNestedReduce } from "./reduce.js";
import { type ComputeOp, Tensor, checkShape, tensorOfBuffer } from "./tensor.js";

export type ComputeBody = ExprLike | ReduceExpr;

/**
 * `te.compute(shape, (i, j) => expr, name, attrs)`. The axes take the names of the callback's
 * parameters (`i`, `j`); a rest parameter or unreadable parameters give `i0`, `i1`, … as in TVM.
 */
export function compute(shape: readonly ExprLike[], fcompute: (...indices: Var[]) => ComputeBody, name = "compute", attrs: Annotations = {}): Tensor {
  const what = `compute ${name}`;
  checkShape(shape, what);
  if (typeof fcompute !== "function") throw new IRError(`${what}: the second argument must be a function of the indices`);
  const axisNames = computeAxisNames(fcompute, shape.length, what);
  const axis = axisNames.map((n, i) => iterVar(variable(n, "int32"), rangeFromExtent(shape[i]!), "spatial"));
  const raw = fcompute(...axis.map((a) => a.var));
  if (raw === undefined || raw === null) throw new IRError(`${what}: the callback returned nothing; it must return an expression`);
  const body = isReduceExpr(raw) ? raw : toExpr(raw);
  checkBody(
    body,
    axis.map((a) => a.var),
    what,
  );
  const op: ComputeOp = { kind: "ComputeOp", name, axis, body, attrs, inputs: collectInputs(body, what) };
  return new Tensor(name, shape, body.dtype, op);
}

function computeAxisNames(fcompute: (...args: never[]) => unknown, ndim: number, what: string): string[] {
  const { names, rest } = parameterList(fcompute);
  const generated = (count: number): string[] => Array.from({ length: count }, (_, i) => `i${i}`);
  if (names === undefined) {
    if (fcompute.length !== 0 && fcompute.length !== ndim) throw arityError(fcompute.length, ndim, what);
    return generated(ndim);
  }
  if (rest) {
    if (names.length > ndim) throw arityError(names.length, ndim, what);
    return [...names, ...generated(ndim - names.length)];
  }
  // A callback that ignores its indices (`() => 0`) is accepted, as a JS function may be.
  if (names.length === 0) return generated(ndim);
  if (names.length !== ndim) throw arityError(names.length, ndim, what);
  return [...names];
}

function arityError(args: number, ndim: number, what: string): IRError {
  return new IRError(`${what}: the callback takes ${args} ind${args === 1 ? "ex" : "ices"} but the shape has ${ndim} dimension${ndim === 1 ? "" : "s"}`);
}

/** Reduce axes may appear only inside the reduction that owns them. */
function checkBody(body: PrimExpr | ReduceExpr, axes: readonly Var[], what: string): void {
  if (!isReduceExpr(body)) {
    rejectNestedReduce(body, what);
    rejectStrayReduceAxes(body, new Set(), what);
    return;
  }
  const own = new Set(body.axes);
  rejectStrayReduceAxes(body.source, own, what);
  if (body.condition !== undefined) {
    rejectNestedReduce(body.condition, what);
    rejectStrayReduceAxes(body.condition, own, what);
  }
  const axisSet = new Set(axes);
  for (const ax of body.axes) {
    const dom = reduceAxisRange(ax)!;
    if (usesVar(dom.min, (v) => axisSet.has(v)) || usesVar(dom.extent, (v) => axisSet.has(v))) {
      throw new IRError(`${what}: the domain of reduce axis ${ax.name} depends on a compute axis, which is not supported`);
    }
  }
}

function rejectStrayReduceAxes(e: PrimExpr, allowed: ReadonlySet<Var>, what: string): void {
  forEachExpr(e, (node) => {
    if (node.kind === "Var" && isReduceAxis(node) && !allowed.has(node)) {
      throw new IRError(`${what}: reduce axis ${node.name} is used outside a reduction over it`);
    }
  });
}

function collectInputs(body: PrimExpr | ReduceExpr, what: string): Tensor[] {
  const inputs: Tensor[] = [];
  const visit = (e: PrimExpr): void =>
    forEachExpr(e, (node) => {
      if (node.kind !== "BufferLoad") return;
      const t = tensorOfBuffer(node.buffer);
      if (t === undefined) throw new IRError(`${what} reads buffer ${node.buffer.name}, which is not a TE tensor`);
      if (!inputs.includes(t)) inputs.push(t);
    });
  if (isReduceExpr(body)) {
    visit(body.source);
    if (body.condition !== undefined) visit(body.condition);
  } else {
    visit(body);
  }
  return inputs;
}
