/**
 * What TVMScript may read off a buffer inside an expression: `A.data` (its storage pointer),
 * `A.elem_offset`, `A.shape[i]`, `A.strides[i]`, and `A.access_ptr(mask, ...)`, which builds TVM's
 * `T.tvm_access_ptr(T.type_annotation(dtype), A.data, offset, extent, mask)` call.
 */
import type { Buffer } from "../buffer.js";
import { withLanes } from "../dtype.js";
import { type BinaryOp, type PrimExpr, binary, call, constant } from "../expr.js";
import { foldBinaryConstants } from "../arith/constFold.js";
import type { PyExpr } from "./ast.js";
import { bindArguments } from "./arguments.js";
import { fail } from "./errors.js";
import type { ExprEvaluator } from "./expr-evaluator.js";
import { vloadCall } from "./vector-access.js";

type CallNode = Extract<PyExpr, { kind: "Call" }>;

export function bufferAttribute(buffer: Buffer, attr: string, pos: PyExpr["pos"]): PrimExpr {
  switch (attr) {
    case "data":
      return buffer.data;
    case "elem_offset":
      return buffer.elemOffset;
    default:
      fail(`unsupported buffer attribute ".${attr}" (expected .data or .elem_offset)`, pos);
  }
}

/** `A.shape[i]` / `A.strides[i]`. */
export function bufferShapeItem(buffer: Buffer, member: string, index: number, pos: PyExpr["pos"]): PrimExpr {
  if (member !== "shape" && member !== "strides") fail(`unsupported buffer attribute ".${member}[...]" (expected .shape[i] or .strides[i])`, pos);
  const items = member === "shape" ? buffer.shape : buffer.strides;
  const item = items[index < 0 ? items.length + index : index];
  if (item === undefined) {
    fail(`${buffer.name}.${member}[${index}] is out of range: the buffer has ${items.length} ${member === "shape" ? "dimensions" : "strides"}`, pos);
  }
  return item;
}

export function bufferMethodCall(ev: ExprEvaluator, buffer: Buffer, method: string, node: CallNode): PrimExpr {
  if (method === "vload") return vloadCall(ev, buffer, node);
  if (method === "vstore") fail(`${buffer.name}.vstore(...) is a statement, not a value`, node.pos);
  if (method !== "access_ptr") fail(`unsupported buffer method ".${method}(...)" (expected .access_ptr, .vload or .vstore)`, node.pos);
  const args = bindArguments(node, `${buffer.name}.access_ptr`, ["access_mask", "ptr_type", "content_lanes", "offset", "extent"], 1);
  const mask = accessMask(ev, args.get("access_mask")!);
  const ptrType = args.get("ptr_type");
  if (ptrType !== undefined && ev.string(ptrType, "the ptr_type of access_ptr") !== "handle") {
    fail('only ptr_type="handle" is supported: the pointer is a handle', ptrType.pos);
  }
  const lanesNode = args.get("content_lanes");
  const lanes = lanesNode === undefined ? 1 : ev.constInt(lanesNode, "the content_lanes of access_ptr");
  if (lanes < 1) fail(`content_lanes must be positive, got ${lanes}`, lanesNode!.pos);
  const indexType = buffer.elemOffset.dtype;
  const offsetNode = args.get("offset");
  const offset = offsetNode === undefined ? constant(0, indexType) : ev.prim(offsetNode, indexType);
  // As TVM's Buffer::access_ptr: the extent runs from the offset to the end of the buffer.
  let extent: PrimExpr;
  if (buffer.shape.length === 0) extent = constant(1, indexType);
  else if (buffer.strides.length === buffer.shape.length) extent = fold("sub", fold("mul", buffer.strides[0]!, buffer.shape[0]!), offset);
  else
    extent = fold(
      "sub",
      buffer.shape.slice(1).reduce((acc, s) => fold("mul", acc, s), buffer.shape[0]!),
      offset,
    );
  let elemOffset = fold("add", buffer.elemOffset, offset);
  if (lanes > 1) {
    extent = fold("div", extent, constant(lanes, indexType));
    elemOffset = fold("div", buffer.elemOffset, constant(lanes, indexType));
  }
  const extentNode = args.get("extent");
  if (extentNode !== undefined) extent = ev.prim(extentNode, indexType);
  const typeAnnotation = call(withLanes(buffer.dtype, lanes), "type_annotation", []);
  return call("handle", "tvm_access_ptr", [typeAnnotation, buffer.data, elemOffset, extent, constant(mask, "int32")]);
}

/** `"r"` → 1, `"w"` → 2, `"rw"` → 3, or the number itself. */
function accessMask(ev: ExprEvaluator, e: PyExpr): number {
  if (e.kind !== "String") return ev.constInt(e, "the access mask of access_ptr");
  let mask = 0;
  for (const ch of e.value) {
    if (ch === "r") mask |= 1;
    else if (ch === "w") mask |= 2;
    else fail(`unknown access mask "${e.value}": use "r", "w" or "rw"`, e.pos);
  }
  return mask;
}

/** `a op b`, folded as TVM's arithmetic helpers fold it (constants, `x + 0`, `x * 1`, `x - 0`). */
function fold(op: BinaryOp, a: PrimExpr, b: PrimExpr): PrimExpr {
  const folded = foldBinaryConstants(op, a, b, a.dtype);
  if (folded !== undefined) return folded;
  const isConst = (x: PrimExpr, v: number): boolean => x.kind === "IntImm" && x.value === v;
  if ((op === "add" || op === "sub") && isConst(b, 0)) return a;
  if (op === "add" && isConst(a, 0)) return b;
  if ((op === "mul" || op === "div") && isConst(b, 1)) return a;
  if (op === "mul" && isConst(a, 1)) return b;
  return binary(op, a, b);
}
