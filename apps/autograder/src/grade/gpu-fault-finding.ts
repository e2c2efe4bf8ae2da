/**
 * After a GPU fault, what the CPU simulator finds running the same schedule at the manifest's
 * reduced size (the trace replayed there, the whole launch simulated once): an out-of-bounds
 * access, a race or a barrier divergence names the thread, the block and the access, which the
 * GPU's error code cannot. A fault that does not reproduce there is said to, so the student knows
 * to look for what only the full size does.
 */
import type { AssignmentBinding } from "../assignment.js";
import { describeGpuFaultReport } from "../gpu/fault.js";
import type { NumericsOutcome, NumericsRequest } from "./numerics-types.js";
import { reducedSizeNumerics } from "./simulator-numerics.js";
import { workloadSizeLabel } from "../workload-size.js";

/** `outcome` (with a fault) with the simulator's finding added to its fault and its error. */
export function withSimulatorFinding(outcome: NumericsOutcome, req: NumericsRequest, binding: AssignmentBinding): NumericsOutcome {
  const fault = outcome.fault;
  if (fault === undefined) return outcome;
  const n = req.settings.sizes.reduced;
  const size = workloadSizeLabel(binding, n);
  let finding: string;
  try {
    const simulated = reducedSizeNumerics(req, binding, 1);
    const wrong = simulated.rounds.find((r) => r.mismatches > 0);
    finding =
      simulated.error !== undefined
        ? `the CPU simulator, running the same schedule at ${size}, reports: ${simulated.error}`
        : wrong !== undefined
          ? `the CPU simulator finds no out-of-bounds access or race at ${size}, but wrong results: ${wrong.mismatches} of ${wrong.elements} outputs wrong; first: ${wrong.firstMismatch ?? "?"}`
          : `the CPU simulator does not reproduce it at ${size} (no out-of-bounds access or race there, and correct results)`;
  } catch (err) {
    // The finding only explains; the fault stands without it.
    finding = `the CPU simulator could not run the schedule at ${size}: ${err instanceof Error ? err.message : String(err)}`;
  }
  const report = { ...fault, simulatorFinding: finding };
  return { ...outcome, fault: report, error: describeGpuFaultReport(report) };
}
