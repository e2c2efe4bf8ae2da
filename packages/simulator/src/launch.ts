/**
 * The launch dimensions a kernel body binds (`thread_extent` attributes), checked against the
 * kernel's launch metadata.
 */
import type { Var } from "@tessera/ir";
import { type DeviceKernel, readLaunchShape } from "@tessera/codegen";
import type { Dim3 } from "./dims.js";
import { SimulationError } from "./errors.js";

export type ThreadTag = "blockIdx.x" | "blockIdx.y" | "blockIdx.z" | "threadIdx.x" | "threadIdx.y" | "threadIdx.z";

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
  const { bindings } = readLaunchShape(body, (detail) => {
    throw new SimulationError(`kernel ${kernelName}: ${detail}`);
  });
  return bindings.map((b) => ({ tag: b.tag as ThreadTag, variable: b.variable, extent: b.extent }));
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
        `kernel ${kernel.name}: the launch metadata's ${what} [${meta.join(", ")}] differs from the body's thread_extent ` + `attributes [${body.join(", ")}]`,
      );
    }
  };
  check("grid", grid, fromBody.grid);
  check("block", block, fromBody.block);
  return { grid: fromBody.grid, block: fromBody.block, bindings };
}
