/**
 * What the explorer shows of a scheduled function: the loop nest, the lowered CUDA, the
 * simulator's verdict against the unscheduled function, its bank-conflict table and the output's
 * tiling. Each part that fails says why, without hiding the others.
 */
import { type LoweredModule, codegenCuda, cudaTarget, lower } from "@tessera/codegen";
import type { PrimFunc } from "@tessera/ir";
import { BarrierDivergenceError, OutOfBoundsError, compareWithReference } from "@tessera/simulator";
import type { BankConflictRow, LoopTreeNode, Outcome, Tiling, Verdict } from "../protocol.js";
import { loopTree } from "./loop-tree.js";
import { outputTiling } from "./tiling.js";

/** The GPU the explorer lowers for (the simulator's default in `tessera simulate`). */
export const EXPLORER_TARGET = "nvidia/tesla-t4";

export interface Analysis {
  readonly loopTree: Outcome<LoopTreeNode>;
  readonly cuda: Outcome<string>;
  readonly verdict: Outcome<Verdict>;
  readonly bankConflicts: Outcome<readonly BankConflictRow[]>;
  readonly tiling: Outcome<Tiling>;
}

function attempt<T>(f: () => T): Outcome<T> {
  try {
    return { ok: true, value: f() };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

function failed<T>(reason: string): Outcome<T> {
  return { ok: false, reason };
}

export function analyze(func: PrimFunc, original: PrimFunc): Analysis {
  const tree = attempt(() => loopTree(func));
  const lowered = attempt(() => lower(func, cudaTarget(EXPLORER_TARGET)));
  if (!lowered.ok) {
    const reason = `cannot lower for ${EXPLORER_TARGET}: ${lowered.reason}`;
    return { loopTree: tree, cuda: failed(reason), verdict: failed(reason), bankConflicts: failed(reason), tiling: failed(reason) };
  }
  const module = lowered.value;
  const simulated = attempt(() => simulateAgainst(module, original));
  return {
    loopTree: tree,
    cuda: attempt(() => codegenCuda(module).source),
    verdict: simulated.ok ? { ok: true, value: simulated.value.verdict } : simulated,
    bankConflicts: simulated.ok ? { ok: true, value: simulated.value.bankConflicts } : simulated,
    tiling: attempt(() => outputTiling(module)),
  };
}

function simulateAgainst(module: LoweredModule, original: PrimFunc): { verdict: Verdict; bankConflicts: BankConflictRow[] } {
  try {
    const report = compareWithReference(module, original, { seed: 0, simulation: { bankConflicts: true } });
    const sites = report.simulation.bankConflicts?.sites ?? [];
    return {
      verdict: {
        passed: report.passed,
        mismatchCount: report.mismatchCount,
        raceCount: report.simulation.raceCount,
        races: report.simulation.races.map((r) => r.message),
        raceBuffers: [...new Set(report.simulation.races.map((r) => r.buffer))],
        fault: undefined,
      },
      bankConflicts: [...sites],
    };
  } catch (err) {
    // A faulty kernel is a verdict, not a failure of the explorer.
    if (err instanceof OutOfBoundsError || err instanceof BarrierDivergenceError) {
      return { verdict: { passed: false, mismatchCount: 0, raceCount: 0, races: [], raceBuffers: [], fault: err.message }, bankConflicts: [] };
    }
    throw err;
  }
}
