/**
 * Lowering for a CPU target: the target-independent passes of the GPU pipeline (lowerInitBlock
 * through flattenBuffer, simplify, unrollLoop) turn a scheduled function into flat, block-free
 * TensorIR with the loop kinds kept (parallel, vectorized, unrolled), which the C generator
 * prints as OpenMP, `#pragma omp simd` and `#pragma GCC unroll`. There is no host/device split:
 * the whole function is one C function running on the host.
 */
import type { PrimFunc } from "@tessera/ir";
import type { Schedule } from "@tessera/schedule";
import type { PassStage } from "../lowered.js";
import type { Pass, PassContext } from "../lower/pass.js";
import { PASSES_FRONT, simplifyPass } from "../lower/passes/index.js";
import { functionSymbol } from "../lower/passes/split-host-device.js";
import { unrollLoopPass } from "../lower/passes/unroll-loop.js";
import { target as gpuTarget } from "../target/target.js";
import { checkCpuSchedule } from "./schedule-check.js";
import { type CpuTarget, cpuTarget } from "./target.js";

/** The passes the CPU pipeline runs, in order. None of them reads the target. */
export const CPU_LOWERING_PASSES: readonly Pass[] = [...PASSES_FRONT, simplifyPass, unrollLoopPass, simplifyPass];

/**
 * The passes take a PassContext with a GPU target, which only the GPU-specific passes
 * (vectorizeLoop, injectPTXAsyncCopy) read; the CPU pipeline runs neither of them. `onHost` lets
 * planBufferAllocation place global intermediates at their uses' lowest common ancestor.
 */
const PASS_CONTEXT: PassContext = { target: gpuTarget("cuda"), onHost: true };

export interface CpuLoweredFunc {
  /** The function's global symbol (also the C function's name). */
  readonly name: string;
  readonly target: CpuTarget;
  /** The scheduled function; its parameters are the C function's parameters. */
  readonly source: PrimFunc;
  /** Flat, block-free TensorIR. */
  readonly func: PrimFunc;
  readonly stages: readonly PassStage[];
}

export interface CpuLowerOptions {
  /** Keep the IR after every pass (default false). */
  readonly recordStages?: boolean;
}

function isPrimFunc(x: PrimFunc | Schedule): x is PrimFunc {
  return (x as { kind?: unknown }).kind === "PrimFunc";
}

/** Lowers a scheduled function (or a schedule's current function) for a CPU target. */
export function lowerForCpu(input: PrimFunc | Schedule, targetOrName: CpuTarget | string = "c", opts: CpuLowerOptions = {}): CpuLoweredFunc {
  const source = isPrimFunc(input) ? input : input.func;
  const t = typeof targetOrName === "string" ? cpuTarget(targetOrName) : targetOrName;
  const name = functionSymbol(source);
  checkCpuSchedule(source, name);
  const stages: PassStage[] = [];
  let func = source;
  for (const pass of CPU_LOWERING_PASSES) {
    func = pass.run(func, PASS_CONTEXT);
    if (opts.recordStages === true) stages.push({ pass: pass.name, func });
  }
  return { name, target: t, source, func, stages };
}
