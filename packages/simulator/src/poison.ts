/**
 * Poison values for memory a GPU leaves uninitialised (shared memory, registers, workspaces): NaN
 * for floats, a recognisable bit pattern for integers, so reading it before writing shows up.
 */
import { type DType, type TypedArray, isFloat, typedArrayFor } from "@tessera/ir";

/** 0xDEADBEEF, wrapped to the element type by the typed array. */
const INTEGER_MARKER = 0xdeadbeef;

export function poisonValue(dt: DType): number {
  return isFloat(dt) ? Number.NaN : INTEGER_MARKER;
}

/** JS literal of `poisonValue(dt)`, for generated code. */
export function poisonLiteral(dt: DType): string {
  return isFloat(dt) ? "NaN" : String(INTEGER_MARKER);
}

export function poisonedArray(dt: DType, length: number): TypedArray {
  return typedArrayFor(dt, length).fill(poisonValue(dt));
}
