/**
 * The simulator's shared-memory bank-conflict model for a bench row, to put beside Nsight
 * Compute's counters: the same schedule at a size the simulator runs in seconds (its tiles, and so
 * its per-instruction conflicts, do not depend on the problem size), lowered for the bench's target.
 */
import type { Schedule } from "@tessera/schedule";
import { type Target, cudaTarget, lower } from "@tessera/codegen";
import { randomArgs } from "@tessera/ir";
import { type SharedAccessCounts, simulate } from "@tessera/simulator";

export interface BankModelCounts {
  /** The size simulated, e.g. "256³ fp32". */
  readonly size: string;
  readonly loads: SharedAccessCounts;
  readonly stores: SharedAccessCounts;
  readonly simulateMs: number;
}

export function bankModelCounts(schedule: Schedule, size: string, target: Target | string, seed: number): BankModelCounts {
  const module = lower(schedule, cudaTarget(target));
  const t0 = performance.now();
  const report = simulate(module, randomArgs(module.source, seed), { bankConflicts: true });
  if (report.bankConflicts === undefined) throw new Error("the simulator returned no bank-conflict report");
  return { size, loads: report.bankConflicts.loads, stores: report.bankConflicts.stores, simulateMs: performance.now() - t0 };
}

/** Wavefronts per instruction, loads / stores, as the ncu columns show them. */
export function bankModelWavefronts(c: BankModelCounts | undefined): string {
  if (c === undefined) return "—";
  const f = (x: SharedAccessCounts) => (x.instructions === 0 ? "—" : (x.wavefronts / x.instructions).toFixed(2));
  return `${f(c.loads)} / ${f(c.stores)}`;
}
