/**
 * TVM's explicit vector accesses of a buffer: `A.vload(begin, dtype=None, predicate=None)` and the
 * statement `A.vstore(begin, value, predicate=None)` (Buffer.vload / Buffer.vstore). A scalar last
 * index of a load wider than the buffer's element becomes a ramp of unit stride, as in TVM; a
 * predicate is a lane mask (`T.Broadcast(T.bool(True), 4)`).
 */
import type { Buffer } from "../buffer.js";
import { lanesOf } from "../dtype.js";
import { type PrimExpr, bufferLoad, predicatedLoad, ramp } from "../expr.js";
import { type BufferStore, bufferStore, predicatedStore } from "../stmt.js";
import type { PyExpr } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { fail } from "./errors.js";
import type { ExprEvaluator } from "./expr-evaluator.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

export function vloadCall(ev: ExprEvaluator, buffer: Buffer, node: CallNode): PrimExpr {
  const name = `${buffer.name}.vload`;
  const args = bindArguments(node, name, ["begin", "dtype", "predicate"], 1);
  let indices = beginIndices(ev, buffer, args.get("begin")!, name);
  const dtypeNode = args.get("dtype");
  const dtype = dtypeNode === undefined ? undefined : ev.string(dtypeNode, `the dtype of ${name}`);
  if (dtype !== undefined) {
    // Scalable lanes are negative (vscale × k is -k): the ratio keeps their sign.
    const factor = lanesOf(dtype) / lanesOf(buffer.dtype);
    const last = indices[indices.length - 1];
    if (Number.isInteger(factor) && (factor > 1 || factor < 0) && last !== undefined && lanesOf(last.dtype) === 1)
      indices = [...indices.slice(0, -1), ramp(last, 1, factor)];
  }
  const load = bufferLoad(buffer, indices);
  if (dtype !== undefined && load.dtype !== dtype) fail(`${name} reads ${load.dtype}, not the dtype="${dtype}" given`, dtypeNode!.pos);
  const predicate = args.get("predicate");
  return predicate === undefined ? load : predicatedLoad(load, ev.prim(predicate));
}

export function vstoreCall(ev: ExprEvaluator, buffer: Buffer, node: CallNode): BufferStore {
  const name = `${buffer.name}.vstore`;
  const args = bindArguments(node, name, ["begin", "value", "predicate"], 2);
  const indices = beginIndices(ev, buffer, args.get("begin")!, name);
  const store = bufferStore(buffer, ev.prim(args.get("value")!, buffer.dtype), indices);
  const predicate = args.get("predicate");
  return predicate === undefined ? store : predicatedStore(store, ev.prim(predicate));
}

function beginIndices(ev: ExprEvaluator, buffer: Buffer, begin: PyExpr, name: string): PrimExpr[] {
  const items = begin.kind === "List" || begin.kind === "Tuple" ? begin.elts : [begin];
  if (items.length !== buffer.shape.length) {
    fail(`${name} needs ${buffer.shape.length} indices (one per dimension of ${buffer.name}), got ${items.length}`, begin.pos);
  }
  return items.map((i) => ev.index(i));
}
