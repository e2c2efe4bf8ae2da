/** CUDA C generation from lowered modules, launch metadata and C++ header export. */
export { CodegenError } from "./errors.js";
export { isCudaVectorType } from "./ctypes.js";
export { type CudaModule, codegenCuda, codegenKernel } from "./module.js";
export { type KernelEmitOptions } from "./kernel-emitter.js";
export { type HeaderOptions, exportHeader, launcherNameOf } from "./header.js";
export { type LaunchShape, type ThreadBinding, launchShape } from "./launch.js";
