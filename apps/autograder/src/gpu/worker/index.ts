export { GpuWorker, GpuFaultError, gpuWorkerEntry, DEFAULT_GPU_REQUEST_TIMEOUT_SEC, type GpuWorkerOptions } from "./gpu-worker.js";
export { GpuWorkerPool, type GpuWorkerPoolOptions } from "./gpu-worker-pool.js";
export type { GpuWorkBackend } from "./work-backend.js";
export type { GpuWorkRequest, GpuWorkReply } from "./protocol.js";
