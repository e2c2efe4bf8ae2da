/**
 * `te.create_prim_func`: lowers a TE graph to a schedulable PrimFunc, following TVM's
 * `CreatePrimFunc` (src/te/operation/create_primfunc.cc):
 * - one block per compute op, named after the op (made unique: `C`, `C_1`, …);
 * - serial loops named after the compute's axes, spatial axes first, then reduce axes;
 * - block iterators `v_<axis>`, spatial for compute axes and reduce for reduce axes, bound
 *   one-to-one to the loops;
 * - reductions get `T.init()` storing the identity and an update `C[…] = combine(C[…], source)`;
 *   a `where` condition becomes `combine(C[…], if_then_else(cond, source, identity))`, which keeps
 *   the update in the combiner form that reduction analysis recognises and leaves `init` intact;
 * - tensors in `args` become parameters in that order; other computed tensors are allocated by
 *   the root block; every placeholder reached must be an argument;
 * - attributes `global_symbol` and `tir.noalias: true`; reads/writes are inferred.
 */
import type { Buffer } from "../buffer.js";
import { IRError } from "../errors.js";
import { type PrimExpr, type Var, bufferLoad, intImm, variable } from "../expr.js";
import { forEachExpr, substitute } from "../functor.js";
import { type PrimFunc, primFunc } from "../func.js";
import { ifThenElse } from "../intrinsics.js";
import {
  type AttrValue,
  type IterType,
  type IterVar,
  type Range,
  type Stmt,
  block,
  blockRealize,
  bufferStore,
  forLoop,
  iterVar,
  rangeFromExtent,
  seq,
} from "../stmt.js";
import { completeAccessRegions } from "../builder/regions.js";
import { withRootBlock } from "../builder/root-block.js";
import { type ReduceExpr, combineReduce, isReduceExpr, reduceAxisRange } from "./reduce.js";
import { type ComputeOp, type Tensor, isTensor } from "./tensor.js";

export interface CreatePrimFuncOptions {
  /** The `global_symbol` attribute (TVM's default is "main"). */
  readonly name?: string;
  readonly attrs?: Readonly<Record<string, AttrValue>>;
}

export function createPrimFunc(args: readonly Tensor[], opts: CreatePrimFuncOptions = {}): PrimFunc {
  checkArgs(args);
  const ops = orderedTensors(args);
  const argSet = new Set(args);
  const names = new UniqueNames();
  const stmts: Stmt[] = [];
  const rootAllocs: Buffer[] = [];
  for (const t of ops) {
    if (t.op.kind === "PlaceholderOp") {
      if (!argSet.has(t)) {
        throw new IRError(`createPrimFunc: placeholder ${t.name} is used by the computation but is not in the argument list`);
      }
      continue;
    }
    if (!argSet.has(t)) rootAllocs.push(t.buffer);
    stmts.push(lowerCompute(t, t.op, names.fresh(t.op.name)));
  }
  if (stmts.length === 0) throw new IRError("createPrimFunc: the arguments contain no compute tensor, so there is nothing to compute");
  const params: Var[] = [];
  const bufferMap = new Map<Var, Buffer>();
  for (const t of args) {
    const handle = variable(t.name, "handle");
    params.push(handle);
    bufferMap.set(handle, t.buffer);
  }
  const attrs: Record<string, AttrValue> = { global_symbol: opts.name ?? "main", "tir.noalias": true, ...(opts.attrs ?? {}) };
  return primFunc(params, bufferMap, withRootBlock(seq(stmts), rootAllocs), attrs);
}

function checkArgs(args: readonly Tensor[]): void {
  if (!Array.isArray(args) || args.length === 0) throw new IRError("createPrimFunc: expected a non-empty array of tensors");
  const seen = new Set<Tensor>();
  for (const [i, t] of args.entries()) {
    if (!isTensor(t)) throw new IRError(`createPrimFunc: argument ${i} is not a TE tensor`);
    if (seen.has(t)) throw new IRError(`createPrimFunc: tensor ${t.name} appears twice in the argument list`);
    seen.add(t);
  }
}

/** Every tensor the arguments depend on, producers before consumers (post-order DFS). */
function orderedTensors(args: readonly Tensor[]): Tensor[] {
  const order: Tensor[] = [];
  const visited = new Set<Tensor>();
  const visit = (t: Tensor): void => {
    if (visited.has(t)) return;
    visited.add(t);
    if (t.op.kind === "ComputeOp") for (const input of t.op.inputs) visit(input);
    order.push(t);
  };
  for (const t of args) visit(t);
  return order;
}

class UniqueNames {
  private readonly used = new Map<string, number>();
  fresh(base: string): string {
    const n = this.used.get(base);
    this.used.set(base, (n ?? 0) + 1);
    return n === undefined ? base : `${base}_${n}`;
  }
}

interface LoweredAxis {
  readonly original: Var;
  readonly dom: Range;
  readonly iterType: IterType;
}

/** The loop nest and block of one compute op. */
function lowerCompute(tensor: Tensor, op: ComputeOp, blockName: string): Stmt {
  const reduce = isReduceExpr(op.body) ? op.body : undefined;
  const axes: LoweredAxis[] = [
    ...op.axis.map((a) => ({ original: a.var, dom: a.dom, iterType: "spatial" as const })),
    ...(reduce?.axes ?? []).map((v) => ({ original: v, dom: reduceAxisRange(v)!, iterType: "reduce" as const })),
  ];
  const loopVars = axes.map((a) => variable(a.original.name, "int32"));
  const iterVars: IterVar[] = axes.map((a) => iterVar(variable(`v_${a.original.name}`, "int32"), a.dom, a.iterType));
  const bindings: PrimExpr[] = [...loopVars];
  if (iterVars.length === 0) {
    // A scalar output still needs one block iterator, as in TVM.
    iterVars.push(iterVar(variable("vi", "int32"), rangeFromExtent(1), "spatial"));
    bindings.push(intImm(0));
  }
  const remap = new Map<Var, PrimExpr>(axes.map((a, i) => [a.original, iterVars[i]!.var]));
  checkFreeVars(op, remap, blockName);
  const toBlock = (e: PrimExpr): PrimExpr => substitute(e, remap);
  const indices = iterVars.slice(0, op.axis.length).map((iv) => iv.var);
  const buffer = tensor.buffer;
  let body: Stmt;
  let init: Stmt | undefined;
  if (reduce !== undefined) {
    const identity = reduce.combiner.identity(reduce.dtype);
    init = bufferStore(buffer, identity, indices);
    body = bufferStore(buffer, combineReduce(reduce, bufferLoad(buffer, indices), reducedValue(reduce, identity, toBlock)), indices);
  } else {
    body = bufferStore(buffer, toBlock(op.body as PrimExpr), indices);
  }
  const blk = completeAccessRegions(block({ name: blockName, iterVars, init, body, annotations: op.attrs }), {});
  let stmt: Stmt = blockRealize(bindings, true, blk);
  for (let i = axes.length - 1; i >= 0; i--) {
    stmt = forLoop(loopVars[i]!, axes[i]!.dom.extent, stmt, { min: axes[i]!.dom.min });
  }
  return stmt;
}

function reducedValue(reduce: ReduceExpr, identity: PrimExpr, toBlock: (e: PrimExpr) => PrimExpr): PrimExpr {
  const source = toBlock(reduce.source);
  if (reduce.condition === undefined) return source;
  return ifThenElse(toBlock(reduce.condition), source, identity);
}

/** The generated function has no way to bind variables other than the op's own axes. */
function checkFreeVars(op: ComputeOp, bound: ReadonlyMap<Var, PrimExpr>, blockName: string): void {
  const check = (e: PrimExpr): void =>
    forEachExpr(e, (node) => {
      if (node.kind === "Var" && !bound.has(node)) {
        throw new IRError(`createPrimFunc: compute ${blockName} uses variable ${node.name}, which is neither one of its axes nor one of its reduce axes`);
      }
    });
  if (isReduceExpr(op.body)) {
    check(op.body.source);
    if (op.body.condition !== undefined) check(op.body.condition);
  } else {
    check(op.body);
  }
}
