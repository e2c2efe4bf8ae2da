/**
 * Simulates a lowered module: every kernel in launch order, on the caller's arrays (the source
 * function's parameters) and on workspaces allocated for the call.
 */
import { type TypedArray, typedArrayConstructorFor } from "@tessera/ir";
import type { DeviceKernel, LoweredModule } from "@tessera/codegen";
import { mergeBankConflicts } from "./bank-report.js";
import { SimulationError } from "./errors.js";
import { poisonedArray } from "./poison.js";
import type { KernelReport, SimulationReport } from "./reports.js";
import { type KernelArgument, type SimulationOptions, simulateKernel } from "./simulate-kernel.js";

/**
 * Runs `module` on `args`: one value per parameter of `module.source` (a typed array per buffer
 * parameter, a number per scalar parameter), in order. Outputs are written into the arrays.
 * Workspaces start poisoned (NaN / 0xDEADBEEF), like uninitialised device memory.
 */
export function simulate(module: LoweredModule, args: readonly KernelArgument[], opts: SimulationOptions = {}): SimulationReport {
  const started = performance.now();
  const params = module.source.params;
  if (!Array.isArray(args) || args.length !== params.length) {
    throw new SimulationError(
      `module ${module.name} takes ${params.length} arguments (${params.map((p) => module.source.bufferMap.get(p)?.name ?? p.name).join(", ")}), ` +
        `got ${Array.isArray(args) ? args.length : String(args)}`,
    );
  }
  const workspaces = module.workspaces.map((w) => poisonedArray(w.dtype, w.elements));
  const kernels: KernelReport[] = module.kernels.map((kernel) => simulateKernel(kernel, kernelArguments(module, kernel, args, workspaces), opts));
  return {
    module: module.name,
    kernels,
    timeMs: performance.now() - started,
    races: kernels.flatMap((k) => k.races),
    raceCount: kernels.reduce((n, k) => n + k.raceCount, 0),
    raceCounts: {
      shared: kernels.reduce((n, k) => n + k.raceCounts.shared, 0),
      global: kernels.reduce((n, k) => n + k.raceCounts.global, 0),
    },
    uninitializedReads: kernels.flatMap((k) => k.uninitializedReads),
    uninitializedReadCount: kernels.reduce((n, k) => n + k.uninitializedReadCount, 0),
    ...(opts.bankConflicts === true ? { bankConflicts: mergeBankConflicts(kernels.flatMap((k) => k.bankConflicts ?? [])) } : {}),
  };
}

/** The kernel's arguments: parameter arrays, workspaces, and scalars matched to source parameters by variable or name. */
function kernelArguments(module: LoweredModule, kernel: DeviceKernel, args: readonly KernelArgument[], workspaces: readonly TypedArray[]): KernelArgument[] {
  const params = module.source.params;
  return kernel.params.map((p) => {
    const label = `kernel ${kernel.name}: parameter ${p.name}`;
    if (p.kind === "scalar") {
      let index = params.indexOf(p.var);
      if (index < 0) index = params.findIndex((q) => q.name === p.name && !module.source.bufferMap.has(q));
      const value = args[index];
      if (index < 0 || typeof value !== "number") {
        throw new SimulationError(`${label}: no scalar parameter of ${module.name} provides it`);
      }
      return value;
    }
    const { kind, index } = p.source;
    const value = kind === "param" ? args[index] : workspaces[index];
    if (value === undefined || typeof value === "number") {
      throw new SimulationError(`${label}: its source, ${kind} ${index}, is ${value === undefined ? "missing" : "a scalar"} in module ${module.name}`);
    }
    const Ctor = typedArrayConstructorFor(p.buffer.dtype);
    if (!(value instanceof Ctor)) {
      throw new SimulationError(`${label}: expected a ${Ctor.name} (${p.buffer.dtype}) for ${kind} ${index}, got a ${value.constructor.name}`);
    }
    return value;
  });
}
