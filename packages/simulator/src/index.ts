/**
 * @tessera/simulator — runs lowered device kernels on the CPU with GPU semantics: per-block shared
 * memory, per-thread registers, real barriers, out-of-bounds reports with the thread that failed,
 * and a shared-memory race detector.
 */
export { type Dim3, formatDim3 } from "./dims.js";
export {
  type BarrierGroup,
  type ThreadLocation,
  BarrierDivergenceError,
  OutOfBoundsError,
  SimulationError,
} from "./errors.js";
export type { KernelReport, RaceKind, RaceReport, SimulationReport, UninitializedRead } from "./reports.js";
export { type KernelArgument, type SimulationOptions, simulateKernel } from "./simulate-kernel.js";
export { simulate } from "./simulate.js";
export { type CompareOptions, type ComparisonReport, type Mismatch, type OutputComparison, compareWithReference } from "./compare.js";
export { type AccessSite, type CompiledKernel, type SharedAllocation, compileKernel } from "./compile-kernel.js";
export { type LaunchDims, type ThreadBinding, type ThreadTag, dimsOfBindings, findThreadBindings, launchDims } from "./launch.js";
export { formatComparison, formatSimulationReport } from "./format.js";
