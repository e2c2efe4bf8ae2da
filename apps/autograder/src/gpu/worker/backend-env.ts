/** The environment variable that names the GPU worker's backend module (tests: a fake GPU). */
export const GPU_WORKER_BACKEND_ENV = "TESSERA_GPU_WORKER_BACKEND";
