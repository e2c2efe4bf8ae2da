/**
 * The argument rule of built modules: one value per parameter of the lowered module's source
 * function, in order. Buffers are host TypedArrays on the sim device and for C host modules (the
 * simulator's element types: Float32Array for float32, …) and NDArrays on the cuda device, of the parameter's dtype and
 * shape; scalars are numbers on both.
 */
import type { LoweredModule } from "@tessera/codegen";
import { typedArrayConstructorFor, type TypedArray } from "@tessera/ir";
import { NDArray } from "../ndarray.js";
import { BuildError, ModuleArgumentError } from "./errors.js";

export interface BufferParamSpec {
  readonly kind: "buffer";
  readonly index: number;
  readonly name: string;
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly elements: number;
}

export interface ScalarParamSpec {
  readonly kind: "scalar";
  readonly index: number;
  readonly name: string;
  readonly dtype: string;
}

export type ParamSpec = BufferParamSpec | ScalarParamSpec;

/** What the module's callers must pass, from `lowered.source`'s parameters. */
export function paramSpecs(lowered: LoweredModule): ParamSpec[] {
  const func = lowered.source;
  return func.params.map((p, index): ParamSpec => {
    const buffer = func.bufferMap.get(p);
    if (buffer === undefined) return { kind: "scalar", index, name: p.name, dtype: p.dtype };
    const shape = buffer.shape.map((s) => {
      if (s.kind !== "IntImm") throw new BuildError(`${lowered.name}: parameter ${buffer.name} has a symbolic shape; build() needs constant shapes`);
      return s.value;
    });
    return { kind: "buffer", index, name: buffer.name, dtype: buffer.dtype, shape, elements: shape.reduce((a, b) => a * b, 1) };
  });
}

export function describeParam(p: ParamSpec): string {
  return p.kind === "buffer" ? `${p.dtype}[${p.shape.join(", ")}]` : `${p.dtype} scalar`;
}

/** A short description of what was passed, for error messages. */
export function describeValue(v: unknown): string {
  if (v instanceof NDArray) return `an NDArray ${v.dtype}[${v.shape.join(", ")}]`;
  if (ArrayBuffer.isView(v)) return `a ${v.constructor.name} of ${(v as unknown as ArrayLike<unknown>).length} elements`;
  if (v === null) return "null";
  if (Array.isArray(v)) return "a plain Array";
  if (typeof v === "object") return `a ${v.constructor?.name ?? "object"}`;
  return `${typeof v} ${String(v)}`;
}

function checkCount(module: string, specs: readonly ParamSpec[], args: readonly unknown[]): void {
  if (args.length !== specs.length) {
    const list = specs.map((p) => `${p.name}: ${describeParam(p)}`).join(", ");
    throw new ModuleArgumentError(`${module} takes ${specs.length} arguments (${list}), got ${args.length}`, module, undefined);
  }
}

function label(module: string, p: ParamSpec): string {
  return `${module}: argument ${p.index} (${p.name})`;
}

function checkScalar(module: string, p: ScalarParamSpec, v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new ModuleArgumentError(`${label(module, p)}: expected a finite number (${p.dtype}), got ${describeValue(v)}`, module, p.index);
  return v;
}

/** Host arguments (sim device, C host modules), checked: TypedArrays for buffers, numbers for scalars. */
export function checkHostArguments(module: string, specs: readonly ParamSpec[], args: readonly unknown[]): (TypedArray | number)[] {
  checkCount(module, specs, args);
  return specs.map((p, i) => {
    const v = args[i];
    if (p.kind === "scalar") return checkScalar(module, p, v);
    const Ctor = typedArrayConstructorFor(p.dtype as Parameters<typeof typedArrayConstructorFor>[0]);
    const expected = `a ${Ctor.name} of ${p.elements} elements (${describeParam(p)})`;
    if (v instanceof NDArray)
      throw new ModuleArgumentError(
        `${label(module, p)}: expected ${expected}, got ${describeValue(v)}; host code takes TypedArrays (NDArrays are for device "cuda")`,
        module,
        p.index,
      );
    if (!(v instanceof Ctor) || v.length !== p.elements)
      throw new ModuleArgumentError(`${label(module, p)}: expected ${expected}, got ${describeValue(v)}`, module, p.index);
    return v;
  });
}

/** The cuda device's arguments, checked: NDArrays of the parameter's dtype and shape for buffers, numbers for scalars. */
export function checkCudaArguments(module: string, specs: readonly ParamSpec[], args: readonly unknown[]): (NDArray | number)[] {
  checkCount(module, specs, args);
  return specs.map((p, i) => {
    const v = args[i];
    if (p.kind === "scalar") return checkScalar(module, p, v);
    const expected = `an NDArray ${describeParam(p)}`;
    if (!(v instanceof NDArray)) {
      const hint = ArrayBuffer.isView(v) ? "; the cuda device takes NDArrays (copy host data with NDArray.from)" : "";
      throw new ModuleArgumentError(`${label(module, p)}: expected ${expected}, got ${describeValue(v)}${hint}`, module, p.index);
    }
    if (v.disposed) throw new ModuleArgumentError(`${label(module, p)}: the NDArray was disposed`, module, p.index);
    if (v.dtype !== p.dtype || v.shape.length !== p.shape.length || v.shape.some((d, k) => d !== p.shape[k]))
      throw new ModuleArgumentError(`${label(module, p)}: expected ${expected}, got ${describeValue(v)}`, module, p.index);
    return v;
  });
}
