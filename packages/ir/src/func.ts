/**
 * Functions and modules.
 */
import type { Buffer } from "./buffer.js";
import { IRError } from "./errors.js";
import type { Var } from "./expr.js";
import type { AttrValue, Stmt } from "./stmt.js";

export interface PrimFunc {
  readonly kind: "PrimFunc";
  /** Parameters: `handle` vars (buffers, through `bufferMap`) or scalar vars. */
  readonly params: readonly Var[];
  /** Maps each handle parameter to the buffer it is viewed as. */
  readonly bufferMap: ReadonlyMap<Var, Buffer>;
  readonly body: Stmt;
  /** `T.func_attr({...})`, e.g. `global_symbol`, `tir.noalias`. */
  readonly attrs: Readonly<Record<string, AttrValue>>;
}

export function primFunc(params: readonly Var[], bufferMap: ReadonlyMap<Var, Buffer>, body: Stmt, attrs: Readonly<Record<string, AttrValue>> = {}): PrimFunc {
  for (const [p, b] of bufferMap) {
    if (!params.includes(p)) throw new IRError(`buffer ${b.name} is mapped from ${p.name}, which is not a parameter`);
  }
  return { kind: "PrimFunc", params, bufferMap, body, attrs };
}

/** The parameter buffers in parameter order (scalar parameters are skipped). */
export function paramBuffers(func: PrimFunc): Buffer[] {
  const out: Buffer[] = [];
  for (const p of func.params) {
    const b = func.bufferMap.get(p);
    if (b !== undefined) out.push(b);
  }
  return out;
}

export function withBody(func: PrimFunc, body: Stmt): PrimFunc {
  return { ...func, body };
}

export interface IRModule {
  readonly kind: "IRModule";
  /** Functions by their name in the module (the Python name of `def name(...)`). */
  readonly functions: ReadonlyMap<string, PrimFunc>;
  /** TVM's module attributes (`I.module_attrs({...})`); absent when there are none. */
  readonly attrs?: Readonly<Record<string, AttrValue>> | undefined;
}

export function irModule(functions: ReadonlyMap<string, PrimFunc> | Record<string, PrimFunc>, attrs?: Readonly<Record<string, AttrValue>>): IRModule {
  const map = functions instanceof Map ? new Map(functions) : new Map(Object.entries(functions));
  return attrs === undefined || Object.keys(attrs).length === 0 ? { kind: "IRModule", functions: map } : { kind: "IRModule", functions: map, attrs };
}

/**
 * The function a schedule works on by default: the only function, else the one named `main`.
 */
export function entryFunctionName(mod: IRModule): string {
  if (mod.functions.size === 1) return [...mod.functions.keys()][0]!;
  if (mod.functions.has("main")) return "main";
  throw new IRError(
    `the module has ${mod.functions.size} functions and none is named "main": name the function to use (${[...mod.functions.keys()].join(", ")})`,
  );
}

export function getFunction(mod: IRModule, name: string): PrimFunc {
  const f = mod.functions.get(name);
  if (f === undefined) {
    throw new IRError(`the module has no function named "${name}" (it has: ${[...mod.functions.keys()].join(", ") || "none"})`);
  }
  return f;
}

export function withFunction(mod: IRModule, name: string, func: PrimFunc): IRModule {
  const functions = new Map(mod.functions);
  functions.set(name, func);
  return { ...mod, functions };
}
