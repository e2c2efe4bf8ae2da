/**
 * The launch dimensions a kernel body binds (`thread_extent` attributes), checked against the
 * kernel's launch metadata.
 */
import { type AttrStmt, type Var, forEachStmt } from "@tessera/ir";
import type { DeviceKernel } from "@tessera/codegen";
import type { Dim3 } from "./dims.js";
import { SimulationError } from "./errors.js";

export type ThreadTag = "blockIdx.x" | "blockIdx.y" | "blockIdx.z" | "threadIdx.x" | "threadIdx.y" | "threadIdx.z";

const TAGS: readonly ThreadTag[] = ["blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z"];

function isThreadTag(name: string): name is ThreadTag {
  return (TAGS as readonly string[]).includes(name);
}

/** Virtual threads (`vthread`, `vthread.x`, …) run as serial loops inside each thread. */
function isVirtualThreadTag(name: string): boolean {
  return /^vthread(\.[xyz])?$/.test(name) || name === "cthread";
}

export interface ThreadBinding {
  readonly tag: ThreadTag;
  readonly variable: Var;
  readonly extent: number;
}

export interface LaunchDims {
  readonly grid: Dim3;
  readonly block: Dim3;
  /** Every variable a `thread_extent` attribute binds (a tag may use several variables). */
  readonly bindings: readonly ThreadBinding[];
}

/** The `thread_extent` attributes of `body`: each tag's extent, which must be the same constant everywhere. */
export function findThreadBindings(kernelName: string, body: DeviceKernel["body"]): ThreadBinding[] {
  const bindings: ThreadBinding[] = [];
  forEachStmt(body, (s) => {
    if (s.kind !== "AttrStmt" || s.key !== "thread_extent") return;
    const binding = threadBinding(kernelName, s);
    if (binding === undefined) return;
    const sameTag = bindings.find((b) => b.tag === binding.tag);
    if (sameTag !== undefined && sameTag.extent !== binding.extent) {
      throw new SimulationError(
        `kernel ${kernelName}: ${binding.tag} is launched with extent ${sameTag.extent} and with extent ${binding.extent}; ` +
          `one tag must have one extent in a kernel`,
      );
    }
    if (!bindings.some((b) => b.variable === binding.variable)) bindings.push(binding);
  });
  return bindings;
}

function threadBinding(kernelName: string, s: AttrStmt): ThreadBinding | undefined {
  const v = s.node;
  if (v === undefined) throw new SimulationError(`kernel ${kernelName}: a thread_extent attribute without a thread variable`);
  if (isVirtualThreadTag(v.name)) return undefined;
  if (!isThreadTag(v.name)) {
    throw new SimulationError(
      `kernel ${kernelName}: thread_extent of an unknown thread tag "${v.name}" (expected one of ${TAGS.join(", ")})`,
    );
  }
  if (s.value.kind !== "IntImm" || s.value.value < 1) {
    throw new SimulationError(`kernel ${kernelName}: the extent of ${v.name} must be a positive constant`);
  }
  return { tag: v.name, variable: v, extent: s.value.value };
}

/** Grid and block of the tags that occur (1 for the others). */
export function dimsOfBindings(bindings: readonly ThreadBinding[]): { grid: Dim3; block: Dim3 } {
  const extent = (tag: ThreadTag): number => bindings.find((b) => b.tag === tag)?.extent ?? 1;
  return {
    grid: [extent("blockIdx.x"), extent("blockIdx.y"), extent("blockIdx.z")],
    block: [extent("threadIdx.x"), extent("threadIdx.y"), extent("threadIdx.z")],
  };
}

/** The kernel's launch dimensions; the body's `thread_extent` attributes must agree with its metadata. */
export function launchDims(kernel: DeviceKernel): LaunchDims {
  const bindings = findThreadBindings(kernel.name, kernel.body);
  const fromBody = dimsOfBindings(bindings);
  const { grid, block } = kernel.launch;
  const check = (what: string, meta: readonly number[], body: Dim3): void => {
    if (meta.length !== 3 || meta.some((n, k) => n !== body[k])) {
      throw new SimulationError(
        `kernel ${kernel.name}: the launch metadata's ${what} [${meta.join(", ")}] differs from the body's thread_extent ` +
          `attributes [${body.join(", ")}]`,
      );
    }
  };
  check("grid", grid, fromBody.grid);
  check("block", block, fromBody.block);
  return { grid: fromBody.grid, block: fromBody.block, bindings };
}
