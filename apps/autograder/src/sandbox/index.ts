export * from "./protocol.js";
export * from "./errors.js";
export { bundleSubmission, ALLOWED_PACKAGES, type BundleRequest } from "./bundle.js";
export { runSandboxed, DEFAULT_LIMITS, type SandboxLimits, type SandboxExit, type SandboxRun, type RunOptions } from "./run.js";
export { prepareSubmissionFile, type PreparedFile, type PrepareOptions, type FileRun, type FileLoad } from "./submission-run.js";
export { SandboxRunMemo, sandboxRunMemo } from "./run-memo.js";
export { confinement, type Confinement } from "./os-confinement.js";
