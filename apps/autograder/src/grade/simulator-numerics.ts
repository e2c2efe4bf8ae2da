/**
 * Numerics without a GPU: the schedule's trace is replayed on the workload at the manifest's
 * reduced size (sampled tile sizes that no longer divide are repaired, as TVM does), lowered for
 * the course's GPU (its thread and shared-memory limits apply) and run in the CPU simulator, which
 * also reports out-of-bounds accesses and data races. Each round poisons D with NaN first and
 * compares it with a float64-accumulated reference.
 */
import { lower } from "@tessera/codegen";
import { Schedule } from "@tessera/schedule";
import { gemmReluAddReferenceOnHost } from "@tessera/runtime";
import { simulate } from "@tessera/simulator";
import { compareOutput, gemmReluAddInputs } from "./inputs.js";
import type { NumericsOutcome, NumericsRequest, NumericsRound } from "./numerics-types.js";
import type { AssignmentBinding } from "../assignment.js";
import { excessiveWork } from "./work-estimate.js";

/** The course's GPU: schedules are lowered with its limits when no GPU is present. */
export const SIMULATED_TARGET = "nvidia/tesla-t4";

export function simulatorNumerics(req: NumericsRequest, binding: AssignmentBinding): NumericsOutcome {
  const n = req.settings.sizes.reduced;
  const device = `CPU simulator (${SIMULATED_TARGET} limits)`;
  const outcome = (rounds: NumericsRound[], error?: string): NumericsOutcome => ({
    passed: error === undefined && rounds.length === req.settings.rounds && rounds.every((r) => r.mismatches === 0),
    backend: "simulator",
    device,
    size: n,
    rounds,
    ...(error === undefined ? {} : { error }),
  });

  // The course's GPU limits apply at the graded size: a block that fits at n³ may not at full size.
  const full = req.settings.sizes.full;
  try {
    lower(req.schedule, SIMULATED_TARGET);
  } catch (err) {
    return outcome([], `the schedule cannot be built for the GPU at ${full}×${full}×${full}: ${message(err)}`);
  }
  const reduced = new Schedule(binding.workload(n));
  try {
    req.schedule.trace.applyTo(reduced);
  } catch (err) {
    return outcome([], `the schedule does not replay at ${n}×${n}×${n}: ${message(err)}`);
  }
  let module: ReturnType<typeof lower>;
  try {
    module = lower(reduced, SIMULATED_TARGET);
  } catch (err) {
    return outcome([], `the schedule cannot be built for the GPU: ${message(err)}`);
  }
  const tooMuch = excessiveWork(module, binding.workload(n));
  if (tooMuch !== undefined) return outcome([], tooMuch);
  const names = module.source.params.map((p) => module.source.bufferMap.get(p)?.name ?? p.name);
  const rounds: NumericsRound[] = [];
  for (let r = 0; r < req.settings.rounds; r++) {
    const seed = req.seed + r;
    const [A, B, C] = gemmReluAddInputs(n, seed, req.settings.inputRange);
    const D = new Float32Array(n * n).fill(Number.NaN);
    const byName: Record<string, Float32Array> = { A, B, C, D };
    const args = names.map((name) => byName[name]);
    if (args.some((a) => a === undefined)) return outcome(rounds, `the scheduled function's parameters are ${names.join(", ")}, not A, B, C, D`);
    let races = 0;
    let raceMessage = "";
    try {
      const report = simulate(module, args as Float32Array[]);
      races = report.raceCount;
      raceMessage = report.races[0]?.message ?? "";
    } catch (err) {
      return outcome(rounds, `running the kernel failed: ${message(err)}`);
    }
    rounds.push(compareOutput(D, gemmReluAddReferenceOnHost(A, B, C, n), n, req.settings, seed));
    if (races > 0) return outcome(rounds, `the kernel has ${races} data race(s) on shared memory (a missing barrier?): ${raceMessage}`);
  }
  return outcome(rounds);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
