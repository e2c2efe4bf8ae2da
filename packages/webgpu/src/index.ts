/**
 * @tessera/webgpu — the WebGPU target's build and runtime, browser-safe: `build(func, "webgpu")`
 * lowers and generates WGSL (`@tessera/codegen`), `loadModule(device, built)` compiles it on any
 * `GPUDevice` (a browser's `navigator.gpu`, or Node's Dawn through `@tessera/webgpu/node`) and
 * runs, times and reads it back.
 */
export { build } from "./build.js";
export { loadModule, WebGpuModule, type DeviceArgs } from "./module.js";
export type { HostArg, HostArray } from "./args.js";
export type { TimingOptions, TimingResult } from "./timing.js";
export { WebGpuRuntimeError } from "./errors.js";
