/**
 * NVRTC releases before its built-in copies of cuda_fp16.h / cuda_bf16.h find them only on an
 * include path: a source that includes them gets the CUDA toolkit's include folder, where one is
 * found (TESSERA_CUDA_INCLUDE, $CUDA_HOME/include, $CUDA_PATH/include, /usr/local/cuda/include).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const HALF_INCLUDE = /#include <(cuda_(fp16|bf16)|mma)\.h>/;

/** The folder holding cuda_fp16.h, or undefined. */
export function cudaIncludeDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.TESSERA_CUDA_INCLUDE,
    env.CUDA_HOME === undefined ? undefined : join(env.CUDA_HOME, "include"),
    env.CUDA_PATH === undefined ? undefined : join(env.CUDA_PATH, "include"),
    "/usr/local/cuda/include",
  ];
  return candidates.find((dir): dir is string => dir !== undefined && existsSync(join(dir, "cuda_fp16.h")));
}

/**
 * `-I<toolkit include>` for NVRTC when `source` includes a 16-bit float header and the folder is
 * found, and its `cccl/` beside it where there is one (the headers include `<nv/target>`).
 */
export function halfHeaderOptions(source: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (!HALF_INCLUDE.test(source)) return [];
  const dir = cudaIncludeDir(env);
  if (dir === undefined) return [];
  const cccl = join(dir, "cccl");
  return existsSync(cccl) ? [`-I${dir}`, `-I${cccl}`] : [`-I${dir}`];
}
