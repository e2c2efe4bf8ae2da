/**
 * Test support: hand-written lowered TVMScript wrapped into DeviceKernels and LoweredModules,
 * standing in for `lower()` (launch dimensions read from the thread_extent attributes).
 */
import { type PrimFunc, bytesOf, constantSize, forEachStmt, parsePrimFunc } from "@tessera/ir";
import type { Dim3 } from "../../src/launch-metadata.js";
import type { ArgumentSource, DeviceKernel, DeviceKernelParam, LoweredModule, Workspace } from "../../src/lowered.js";
import { target } from "../../src/target/target.js";

function launchDims(func: PrimFunc): { grid: Dim3; block: Dim3; sharedBytes: number } {
  const extents = new Map<string, number>();
  let sharedBytes = 0;
  forEachStmt(func.body, (s) => {
    if (s.kind === "AttrStmt" && s.key === "thread_extent" && s.node !== undefined && s.value.kind === "IntImm") {
      extents.set(s.node.name, s.value.value);
    }
    if (s.kind === "Allocate" && s.buffer.scope === "shared") sharedBytes += (constantSize(s.buffer) ?? 0) * bytesOf(s.buffer.dtype);
  });
  const dim = (p: string): Dim3 => [extents.get(`${p}.x`) ?? 1, extents.get(`${p}.y`) ?? 1, extents.get(`${p}.z`) ?? 1];
  return { grid: dim("blockIdx"), block: dim("threadIdx"), sharedBytes };
}

/**
 * A kernel from a lowered PrimFunc: its parameters in order (buffers from the bufferMap, other
 * parameters as scalars). `sources` maps a buffer name to where its argument comes from
 * (default: the parameter of the same position).
 */
export function kernelFromFunc(func: PrimFunc, name: string, sources: Readonly<Record<string, ArgumentSource>> = {}): DeviceKernel {
  const params: DeviceKernelParam[] = func.params.map((p, index) => {
    const buffer = func.bufferMap.get(p);
    if (buffer === undefined) return { kind: "scalar", name: p.name, var: p, dtype: p.dtype };
    return { kind: "buffer", name: buffer.name, buffer, source: sources[buffer.name] ?? { kind: "param", index } };
  });
  const { grid, block, sharedBytes } = launchDims(func);
  const launch = {
    name,
    grid,
    block,
    dynamicSharedBytes: 0,
    params: params.map((p) => ({ name: p.name, kind: p.kind, dtype: (p.kind === "buffer" ? p.buffer.dtype : p.dtype) as "float32" })),
  };
  return { name, params, body: func.body, launch, sharedBytes };
}

function globalSymbol(func: PrimFunc): string {
  const s = func.attrs.global_symbol;
  return typeof s === "string" ? s : "main";
}

/** A one-kernel module from lowered TVMScript; the kernel is `<global_symbol>_kernel`. */
export function moduleFromScript(script: string, targetName = "nvidia/tesla-t4"): LoweredModule {
  const func = parsePrimFunc(script);
  const name = globalSymbol(func);
  return { name, target: target(targetName), source: func, workspaces: [], kernels: [kernelFromFunc(func, `${name}_kernel`)], stages: [] };
}

/** A module of several kernels; `source` declares the host-visible parameters. */
export function moduleOfKernels(source: PrimFunc, kernels: readonly DeviceKernel[], workspaces: readonly Workspace[] = []): LoweredModule {
  return { name: globalSymbol(source), target: target("nvidia/tesla-t4"), source, workspaces, kernels, stages: [] };
}
