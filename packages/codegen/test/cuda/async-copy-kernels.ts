/** The pipelined cp.async copy loops of async-copy.test.ts and async-copy-nvcc.test.ts. */
import { type AsyncCopyLoopOptions, loweredAsyncCopyScript } from "@tessera/corpus";
import { parsePrimFunc } from "@tessera/ir";
import { moduleFromKernelFunc } from "../../src/kernel-from-func.js";
import type { LoweredModule } from "../../src/lowered.js";
import { injectPTXAsyncCopyPass } from "../../src/lower/passes/inject-ptx-async-copy.js";
import { simplifyPass } from "../../src/lower/passes/simplify.js";
import { cudaTarget } from "../../src/targets/target.js";

/** The pipelined loop after injectPTXAsyncCopy and simplify, as a one-kernel module for `targetName`. */
export function asyncModule(opts: AsyncCopyLoopOptions, targetName = "nvidia/a100"): LoweredModule {
  const ctx = { target: cudaTarget(targetName) };
  const lowered = simplifyPass.run(injectPTXAsyncCopyPass.run(parsePrimFunc(loweredAsyncCopyScript(opts)), ctx), ctx);
  return moduleFromKernelFunc(lowered, { target: ctx.target });
}

export const GOLDEN: readonly { file: string; opts: AsyncCopyLoopOptions }[] = [
  { file: "async_copy_2stage_float4.cu", opts: { stages: 2, lanes: 4, name: "async_copy_2stage_float4" } },
  { file: "async_copy_3stage_float.cu", opts: { stages: 3, lanes: 1, name: "async_copy_3stage_float" } },
  { file: "async_copy_zfill_float4.cu", opts: { stages: 2, lanes: 4, validElements: 1000, name: "async_copy_zfill_float4" } },
];
