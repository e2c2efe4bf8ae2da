/**
 * Argument marshalling: which parameters a PrimFunc takes, checking the values passed to `run`,
 * and inferring shape variables from array lengths.
 */
import type { Buffer } from "../buffer.js";
import { type DType, dtypeInfo, intRange } from "../dtype.js";
import type { Var } from "../expr.js";
import type { PrimFunc } from "../func.js";
import { describeExpr } from "../printer/expr-text.js";
import { ExecutionError } from "./errors.js";
import { roundToFloatPrecision } from "./half-precision.js";
import { evalShapeExpr, varsOf } from "./shape-eval.js";
import { type TypedArray, describeValueType, typedArrayConstructorFor } from "./typed-arrays.js";

export interface ParamInfo {
  /** The buffer's name for buffer parameters, the variable's name for scalars. */
  readonly name: string;
  readonly kind: "buffer" | "scalar";
  /** Element dtype of a buffer parameter; dtype of a scalar one. */
  readonly dtype: DType;
  readonly param: Var;
  readonly buffer?: Buffer | undefined;
}

export interface ArgumentPlan {
  readonly funcName: string;
  readonly params: readonly ParamInfo[];
  /** Variables in parameter buffers' shapes, strides or offsets that are not parameters themselves. */
  readonly inferredVars: readonly Var[];
}

export type ArgumentValue = TypedArray | number;

export function functionName(func: PrimFunc): string {
  const symbol = func.attrs["global_symbol"];
  return typeof symbol === "string" && symbol !== "" ? symbol : "main";
}

export function planArguments(func: PrimFunc): ArgumentPlan {
  const params: ParamInfo[] = func.params.map((param) => {
    const buffer = func.bufferMap.get(param);
    return buffer === undefined
      ? { name: param.name, kind: "scalar", dtype: param.dtype, param }
      : { name: buffer.name, kind: "buffer", dtype: buffer.dtype, param, buffer };
  });
  const inferredVars: Var[] = [];
  for (const p of params) {
    if (p.kind === "scalar" && p.dtype === "handle") {
      throw new ExecutionError(`${functionName(func)}: parameter ${p.name} is a handle without a buffer in the buffer map`);
    }
    if (p.buffer === undefined) continue;
    for (const e of [...p.buffer.shape, ...p.buffer.strides, p.buffer.elemOffset]) {
      for (const v of varsOf(e)) {
        if (!func.params.includes(v) && !inferredVars.includes(v)) inferredVars.push(v);
      }
    }
  }
  return { funcName: functionName(func), params, inferredVars };
}

/** `float32[n, 256]`. */
export function describeBufferType(buffer: Buffer): string {
  return `${buffer.dtype}[${buffer.shape.map(describeExpr).join(", ")}]`;
}

function isCompact(buffer: Buffer, env: ReadonlyMap<Var, number>): boolean {
  return buffer.strides.length === 0 && evalShapeExpr(buffer.elemOffset, env) === 0;
}

/**
 * Elements an array needs for `buffer` once its variables have values: the shape's product for
 * compact buffers, else up to the last element. Undefined while a variable is unknown.
 */
export function requiredLength(buffer: Buffer, env: ReadonlyMap<Var, number>): number | undefined {
  const shape = buffer.shape.map((s) => evalShapeExpr(s, env));
  const offset = evalShapeExpr(buffer.elemOffset, env);
  if (offset === undefined || shape.some((n) => n === undefined)) return undefined;
  const dims = shape as number[];
  if (dims.some((n) => n === 0)) return offset;
  if (buffer.strides.length === 0) return offset + dims.reduce((a, b) => a * b, 1);
  const strides = buffer.strides.map((s) => evalShapeExpr(s, env));
  if (strides.some((s) => s === undefined)) return undefined;
  return offset + 1 + dims.reduce((acc, n, k) => acc + (n - 1) * strides[k]!, 0);
}

/**
 * Checks `args` against the plan and returns the values in the generated function's parameter
 * order: one per parameter, then the inferred variables.
 */
export function marshalArguments(plan: ArgumentPlan, args: readonly unknown[]): unknown[] {
  const where = plan.funcName;
  if (!Array.isArray(args)) {
    throw new ExecutionError(`${where}: arguments must be an array, got ${describeValueType(args)}`);
  }
  if (args.length !== plan.params.length) {
    throw new ExecutionError(
      `${where} takes ${plan.params.length} argument${plan.params.length === 1 ? "" : "s"} ` +
        `(${plan.params.map((p) => p.name).join(", ")}), got ${args.length}`,
    );
  }
  const env = new Map<Var, number>();
  const values = plan.params.map((p, i) => {
    const label = `${where}: argument ${i} (${p.name})`;
    if (p.buffer === undefined) {
      const value = scalarArgument(label, p.dtype, args[i]);
      env.set(p.param, typeof value === "boolean" ? Number(value) : value);
      return value;
    }
    return arrayArgument(label, p.buffer, args[i]);
  });
  inferShapeVars(plan, values, env);
  plan.params.forEach((p, i) => {
    if (p.buffer === undefined) return;
    checkLength(`${where}: argument ${i} (${p.name})`, p.buffer, values[i] as TypedArray, env);
  });
  return [...values, ...plan.inferredVars.map((v) => env.get(v))];
}

function scalarArgument(label: string, dt: DType, value: unknown): number | boolean {
  const info = dtypeInfo(dt);
  if (info.code === "bool") {
    if (typeof value === "boolean") return value;
    if (value === 0 || value === 1) return value === 1;
    throw new ExecutionError(`${label}: expected a bool (true/false or 0/1), got ${describeValueType(value)}`);
  }
  if (typeof value !== "number") {
    throw new ExecutionError(`${label}: expected a number (${dt}), got ${describeValueType(value)}`);
  }
  if (info.code === "float" || info.code === "bfloat") return roundToFloatPrecision(info.code, info.bits, value);
  if (!Number.isInteger(value)) throw new ExecutionError(`${label}: expected an integer (${dt}), got ${value}`);
  const { min, max } = intRange(dt);
  if (info.bits <= 32 && (value < min || value > max)) {
    throw new ExecutionError(`${label}: ${value} is outside the range of ${dt} [${min}, ${max}]`);
  }
  if (!Number.isSafeInteger(value)) throw new ExecutionError(`${label}: ${value} is not exactly representable (beyond 2^53)`);
  return value;
}

function arrayArgument(label: string, buffer: Buffer, value: unknown): TypedArray {
  const Ctor = typedArrayConstructorFor(buffer.dtype);
  if (!(value instanceof Ctor)) {
    throw new ExecutionError(`${label}: expected a ${Ctor.name} for buffer ${describeBufferType(buffer)}, got ${describeValueType(value)}`);
  }
  return value;
}

/** Solves `length = Π shape` for a compact buffer whose shape has exactly one unknown variable dimension. */
function inferShapeVars(plan: ArgumentPlan, values: readonly unknown[], env: Map<Var, number>): void {
  // An array is viewed from its first element: a buffer's offset variable (TVM's fresh elem_offset
  // of a match_buffer with an offset_factor) is 0 unless a scalar parameter gives it.
  for (const p of plan.params) {
    const offset = p.buffer?.elemOffset;
    if (offset?.kind === "Var" && !env.has(offset)) env.set(offset, 0);
  }
  let progress = true;
  while (progress) {
    progress = false;
    plan.params.forEach((p, i) => {
      const buffer = p.buffer;
      if (buffer === undefined || !isCompact(buffer, env)) return;
      const unknown = buffer.shape.filter((s) => evalShapeExpr(s, env) === undefined);
      const target = unknown[0];
      if (unknown.length !== 1 || target === undefined || target.kind !== "Var") return;
      const known = buffer.shape.reduce((acc, s) => (s === target ? acc : acc * evalShapeExpr(s, env)!), 1);
      const length = (values[i] as TypedArray).length;
      const inferred = known === 0 ? Number.NaN : length / known;
      if (!Number.isInteger(inferred) || inferred < 0) {
        throw new ExecutionError(
          `${plan.funcName}: argument ${i} (${p.name}): cannot infer ${target.name} for buffer ${describeBufferType(buffer)} ` +
            `from an array of ${length} elements (not a multiple of ${known})`,
        );
      }
      env.set(target, inferred);
      progress = true;
    });
  }
  const missing = plan.inferredVars.filter((v) => !env.has(v));
  if (missing.length > 0) {
    throw new ExecutionError(
      `${plan.funcName}: cannot infer ${missing.map((v) => v.name).join(", ")} from the array lengths ` +
        `(only a single variable dimension of a compact buffer can be inferred); pass it as a scalar parameter`,
    );
  }
}

function checkLength(label: string, buffer: Buffer, array: TypedArray, env: ReadonlyMap<Var, number>): void {
  const shape = buffer.shape.map((s) => evalShapeExpr(s, env));
  shape.forEach((n, k) => {
    if (n === undefined || !Number.isInteger(n) || n < 0) {
      throw new ExecutionError(`${label}: dimension ${k} of buffer ${describeBufferType(buffer)} evaluates to ${n}, not a non-negative integer`);
    }
  });
  const need = requiredLength(buffer, env);
  if (need === undefined) throw new ExecutionError(`${label}: cannot evaluate the size of buffer ${describeBufferType(buffer)}`);
  const exact = isCompact(buffer, env);
  if (exact ? array.length !== need : array.length < need) {
    throw new ExecutionError(
      `${label}: expected ${exact ? "" : "at least "}${need} elements for buffer ${describeBufferType(buffer)} ` +
        `(shape [${shape.join(", ")}]), got ${array.length}`,
    );
  }
}
