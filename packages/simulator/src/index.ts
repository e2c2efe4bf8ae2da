/**
 * @tessera/simulator — runs lowered device kernels on the CPU with GPU semantics: per-block shared
 * memory, per-thread registers, real barriers, out-of-bounds reports with the thread that failed,
 * a data-race detector for shared and global memory, and (on request) a model of shared-memory bank conflicts.
 */
export { type Dim3, formatDim3 } from "./dims.js";
export {
  type BarrierGroup,
  type ThreadLocation,
  BarrierDivergenceError,
  OutOfBoundsError,
  SimulationError,
} from "./errors.js";
export type {
  BankConflictReport,
  BankConflictSite,
  KernelReport,
  MemoryScope,
  RaceCounts,
  RaceKind,
  RaceReport,
  SharedAccessCounts,
  SimulationReport,
  UninitializedRead,
} from "./reports.js";
export { type WarpAccessCost, warpAccessCost } from "./bank-model.js";
export { type BlockSelection } from "./block-selection.js";
export { type KernelArgument, type SimulationOptions, simulateKernel } from "./simulate-kernel.js";
export { simulate } from "./simulate.js";
export { type CompareOptions, type ComparisonReport, type Mismatch, type OutputComparison, compareWithReference } from "./compare.js";
export { type AccessSite, type CompiledKernel, type SharedAllocation, type TrackedMemory, compileKernel } from "./compile-kernel.js";
export { type LaunchDims, type ThreadBinding, type ThreadTag, dimsOfBindings, findThreadBindings, launchDims } from "./launch.js";
export { describeRaceCounts, formatBankConflicts, formatComparison, formatSimulationReport } from "./format.js";
export { type StoreCoverage, type StoreCoverageResult, type StoreOverlap, type ThreadIndex, kernelStoreCoverage, moduleStoreCoverage } from "./store-coverage.js";
export { type StoreSlice, sliceStores } from "./store-slice.js";
