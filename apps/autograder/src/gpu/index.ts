export { openGpuBackend, openGpuWorkerPool, type OpenGpuBackend, type OpenGpuWorkerPool } from "./backend.js";
export { gpuKeyFor } from "./gpu-key.js";
export { workloadSize } from "./workload-arrays.js";
export { localDeviceTarget } from "./device-target.js";
export { type GpuFault, type GpuFaultReport, describeGpuFault, describeGpuFaultReport } from "./fault.js";
export * from "./worker/index.js";
