export * from "./runner.js";
export { LocalRunner, runnerChildEntry, DEFAULT_RUN_TIMEOUT_SEC, type LocalRunnerOptions } from "./local-runner.js";
export type { MeasureBackend, MeasureResult, MeasureTask } from "./measure-backend.js";
export { randomArgsFor, elementsOf } from "./random-args.js";
export { compareArguments, firstResultChecker, referenceChecker, cpuReference, type RunnerChecker, type Tolerance } from "./checker.js";
export * from "./isolation/index.js";
