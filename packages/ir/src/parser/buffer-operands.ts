/**
 * Buffers written where a call takes an expression, as TVM's Python helpers read them:
 * `T.call_packed("f", A)` packs `A` into a DLTensor descriptor (`T.tvm_stack_make_array`), and
 * `T.address_of(A)` is the address of its first element (`T.address_of(A[0, 0])`).
 */
import type { Buffer } from "../buffer.js";
import { type PrimExpr, bufferLoad, call, constant, intImm } from "../expr.js";

/** Calls whose buffer arguments are packed into `T.tvm_stack_make_array(...)`. */
const PACKING_CALLS: ReadonlySet<string> = new Set([
  "call_packed",
  "call_cpacked",
  "tvm_call_packed",
  "tvm_call_cpacked",
  "call_packed_lowered",
  "call_cpacked_lowered",
  "tvm_call_packed_lowered",
  "tvm_call_cpacked_lowered",
]);

/** The operand a buffer stands for in `T.<op>(..., A, ...)`, or undefined where a buffer is no operand. */
export function bufferOperand(op: string, buffer: Buffer): PrimExpr | undefined {
  if (op === "address_of")
    return bufferLoad(
      buffer,
      buffer.shape.map(() => 0),
    );
  if (PACKING_CALLS.has(op)) return packedBuffer(buffer);
  return undefined;
}

/** TVM's `_pack_buffer`: data, shape, strides (0 when compact), ndim, a zero of the dtype, elem_offset. */
function packedBuffer(b: Buffer): PrimExpr {
  const shape = call("handle", "tvm_stack_make_shape", b.shape);
  const strides = b.strides.length === 0 ? intImm(0) : call("handle", "tvm_stack_make_shape", b.strides);
  return call("handle", "tvm_stack_make_array", [b.data, shape, strides, intImm(b.shape.length), constant(0, b.dtype), b.elemOffset]);
}
