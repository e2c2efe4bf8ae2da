/**
 * NVRTC compiles run on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says more), so
 * the pool's size bounds how many candidates compile at once. libuv reads the variable when the
 * pool first starts — in practice before any module code runs — so it must be set in the
 * environment of the process: the GPU bundle's run.sh sets 16; when running from sources, start
 * tuning as `UV_THREADPOOL_SIZE=16 pnpm tessera ...`.
 */
const LIBUV_DEFAULT = 4;

/** The thread pool size this process runs with. */
export function uvThreadPoolSize(): number {
  const n = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 1024) : LIBUV_DEFAULT;
}

/** A warning when fewer than `wanted` compiles can run at once, else undefined. */
export function threadPoolWarning(wanted: number): string | undefined {
  const size = uvThreadPoolSize();
  if (size >= wanted) return undefined;
  return `UV_THREADPOOL_SIZE is ${size}: at most ${size} CUDA compiles run at once (wanted ${wanted}); set UV_THREADPOOL_SIZE=${wanted} in the environment before starting node`;
}
