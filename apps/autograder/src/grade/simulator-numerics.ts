/**
 * Numerics without a GPU. The schedule is lowered at the graded size for the course's GPU (its
 * thread and shared-memory limits apply) and checked there: a sample of the full-size kernel's
 * thread blocks runs in the CPU simulator, each block complete, and the elements they write are
 * compared with a float64 reference (sampled-numerics.ts). The simulator also reports
 * out-of-bounds accesses and data races on shared and global memory in those blocks.
 *
 * A quick pre-check replays the trace at the manifest's reduced size (sampled tile sizes that no
 * longer divide are repaired, as TVM does) and simulates the whole launch once. It never decides
 * alone: a schedule written for the full size (literal split factors, say) may give a different
 * kernel at the reduced size, so its failure is only a note, next to a full-size check that
 * passed (after one that failed it would repeat the failure, and is not run). It decides only where
 * the full-size kernel cannot be sampled (several kernels, or one thread block larger than the
 * sampling budget), and then runs every round, as the check of record; the outcome says so. Even
 * then the full-size kernels' stores of the output are checked for every thread (output-coverage.ts).
 */
import { type LoweredModule, lower } from "@tessera/codegen";
import { Schedule } from "@tessera/schedule";
import { describeRaceCounts, simulate } from "@tessera/simulator";
import type { AssignmentBinding } from "../assignment.js";
import { compareOutput } from "./compare-output.js";
import { type NumericsKeyParts, numericsKey, simulatedNumericsMemo } from "./numerics-memo.js";
import { checkOutputCoverage } from "./output-coverage.js";
import type { NumericsOutcome, NumericsRequest, NumericsRound } from "./numerics-types.js";
import type { SampledRoundsHelper } from "./rounds/rounds-helper.js";
import { RACE_HINT, type SampleResult, type SampledRequest, planSample, runSample } from "./sampled-numerics.js";
import { excessiveWork } from "./work-estimate.js";
import { workloadSizeLabel } from "../workload-size.js";

import { SIMULATED_TARGET } from "./simulated-target.js";

export { SIMULATED_TARGET };

const DEVICE = `CPU simulator (${SIMULATED_TARGET} limits)`;

export interface SimulatorNumericsOptions {
  /** Statements the sampled full-size check may simulate over all rounds (default: rounds × SAMPLE_WORK_PER_ROUND). */
  readonly workBudget?: number;
}

/** The check, in this thread. */
export function simulatorNumerics(req: NumericsRequest, binding: AssignmentBinding, opts: SimulatorNumericsOptions = {}): NumericsOutcome {
  return simulatedNumericsMemo.remember(sampledKey(req, binding, opts), () => sampledHere(req, binding, opts));
}

function sampledHere(req: NumericsRequest, binding: AssignmentBinding, opts: SimulatorNumericsOptions): NumericsOutcome {
  const started = performance.now();
  const prepared = prepare(req, binding, opts);
  if (prepared.kind === "decided") return prepared.outcome;
  const planned = planSample(prepared.request);
  if (!planned.ok) return unsampled(req, binding, prepared.request.module, planned.why);
  return outcomeOf(req, binding, runSample(planned.plan, started));
}

/** The check, with `helper`'s worker thread running part of the sampled rounds (the same outcome, sooner). */
export async function simulatorNumericsWith(
  helper: SampledRoundsHelper,
  req: NumericsRequest,
  binding: AssignmentBinding,
  opts: SimulatorNumericsOptions = {},
): Promise<NumericsOutcome> {
  return simulatedNumericsMemo.rememberAsync(sampledKey(req, binding, opts), () => sampledWith(helper, req, binding, opts));
}

async function sampledWith(
  helper: SampledRoundsHelper,
  req: NumericsRequest,
  binding: AssignmentBinding,
  opts: SimulatorNumericsOptions,
): Promise<NumericsOutcome> {
  const started = performance.now();
  const prepared = prepare(req, binding, opts);
  if (prepared.kind === "decided") return prepared.outcome;
  const planned = planSample(prepared.request);
  if (!planned.ok) return unsampled(req, binding, prepared.request.module, planned.why);
  return outcomeOf(req, binding, await helper.check(req.schedule, planned.plan, started));
}

/** What the sampled check's outcome depends on (with the pre-check it may run, which depends on less). */
function sampledKey(req: NumericsRequest, binding: AssignmentBinding, opts: SimulatorNumericsOptions): string {
  return numericsKey(req.schedule, keyParts("sampled", req, binding, { workBudget: opts.workBudget ?? null }));
}

function keyParts(check: NumericsKeyParts["check"], req: NumericsRequest, binding: AssignmentBinding, options: unknown): NumericsKeyParts {
  return { check, assignment: binding.name, target: SIMULATED_TARGET, settings: req.settings, seed: req.seed, options };
}

type Prepared = { readonly kind: "decided"; readonly outcome: NumericsOutcome } | { readonly kind: "sampled"; readonly request: SampledRequest };

/** The schedule lowered at full size, and what checks it: a failure already, or the sampled check's request. */
function prepare(req: NumericsRequest, binding: AssignmentBinding, opts: SimulatorNumericsOptions): Prepared {
  const full = req.settings.sizes.full;
  const fail = (error: string): Prepared => ({
    kind: "decided",
    outcome: { passed: false, backend: "simulator", device: DEVICE, size: full, shape: workloadSizeLabel(binding, full), rounds: [], error },
  });
  let module: LoweredModule;
  try {
    module = lower(req.schedule, SIMULATED_TARGET);
  } catch (err) {
    return fail(`the schedule cannot be built for the GPU at ${workloadSizeLabel(binding, full)}: ${message(err)}`);
  }
  const tooMuch = excessiveWork(module, binding.workload(full));
  if (tooMuch !== undefined) return fail(tooMuch);
  return {
    kind: "sampled",
    request: { module, binding, n: full, settings: req.settings, seed: req.seed, ...(opts.workBudget === undefined ? {} : { workBudget: opts.workBudget }) },
  };
}

/** The full-size kernel cannot be sampled: the replay at the reduced size decides. */
function unsampled(req: NumericsRequest, binding: AssignmentBinding, module: LoweredModule, why: string): NumericsOutcome {
  const full = req.settings.sizes.full;
  const decided = reducedSizeNumerics(req, binding, req.settings.rounds);
  const n = req.settings.sizes.reduced;
  const notes = [
    `the ${workloadSizeLabel(binding, full)} kernel could not be checked block by block (${why}), so the replay at ${workloadSizeLabel(binding, n)} decided`,
  ];
  // Whether the full-size kernels write all of the output is still checked, over every thread.
  const output = binding.numerics.output;
  const coverage = checkOutputCoverage(module, output);
  if (!coverage.checked)
    return {
      ...decided,
      notes: [...notes, `whether the ${workloadSizeLabel(binding, full)} kernels write every element of ${output} was not checked (${coverage.why})`],
    };
  if (decided.passed && coverage.problem !== undefined)
    return { ...decided, passed: false, error: `the ${workloadSizeLabel(binding, full)} kernels: ${coverage.problem}`, notes };
  return { ...decided, notes };
}

/** The outcome of a sampled check, with the pre-check's note when it passed but the pre-check did not. */
function outcomeOf(req: NumericsRequest, binding: AssignmentBinding, sampled: SampleResult): NumericsOutcome {
  const passed = sampled.error === undefined && sampled.rounds.length > 0 && sampled.rounds.every((r) => r.mismatches === 0);
  // The pre-check only explains: after a failure of record it would repeat it.
  const precheck = passed ? reducedSizeNumerics(req, binding, 1) : undefined;
  const notes =
    precheck === undefined || precheck.passed
      ? []
      : [`the quick pre-check at ${precheck.shape} (the trace replayed at a reduced size) did not pass, which does not count: ${precheckSummary(precheck)}`];
  return {
    passed,
    backend: "simulator",
    device: DEVICE,
    size: req.settings.sizes.full,
    shape: workloadSizeLabel(binding, req.settings.sizes.full),
    rounds: sampled.rounds,
    sample: sampled.sample,
    ...(sampled.error === undefined ? {} : { error: sampled.error }),
    ...(notes.length === 0 ? {} : { notes }),
  };
}

/** The trace replayed at the reduced size and the whole launch simulated, `rounds` times. */
export function reducedSizeNumerics(req: NumericsRequest, binding: AssignmentBinding, rounds: number): NumericsOutcome {
  const key = numericsKey(req.schedule, keyParts("reduced", req, binding, { rounds }));
  return simulatedNumericsMemo.remember(key, () => reducedSizeHere(req, binding, rounds));
}

function reducedSizeHere(req: NumericsRequest, binding: AssignmentBinding, rounds: number): NumericsOutcome {
  const n = req.settings.sizes.reduced;
  const outcome = (done: NumericsRound[], error?: string): NumericsOutcome => ({
    passed: error === undefined && done.length === rounds && done.every((r) => r.mismatches === 0),
    backend: "simulator",
    device: DEVICE,
    size: n,
    shape: workloadSizeLabel(binding, n),
    rounds: done,
    ...(error === undefined ? {} : { error }),
  });
  const reduced = new Schedule(binding.workload(n));
  try {
    req.schedule.trace.applyTo(reduced);
  } catch (err) {
    return outcome([], `the schedule does not replay at ${workloadSizeLabel(binding, n)}: ${message(err)}`);
  }
  let module: ReturnType<typeof lower>;
  try {
    module = lower(reduced, SIMULATED_TARGET);
  } catch (err) {
    return outcome([], `the schedule cannot be built for the GPU at ${workloadSizeLabel(binding, n)}: ${message(err)}`);
  }
  const tooMuch = excessiveWork(module, binding.workload(n));
  if (tooMuch !== undefined) return outcome([], tooMuch);
  const names = module.source.params.map((p) => module.source.bufferMap.get(p)?.name ?? p.name);
  const numerics = binding.numerics;
  const done: NumericsRound[] = [];
  for (let r = 0; r < rounds; r++) {
    const seed = req.seed + r;
    const inputs = numerics.inputs(n, seed, req.settings.inputRange);
    const output = new Float32Array(n * n).fill(Number.NaN);
    const byName = new Map<string, Float32Array>(numerics.inputNames.map((name, k) => [name, inputs[k]!]));
    byName.set(numerics.output, output);
    const args = names.map((name) => byName.get(name));
    if (args.some((a) => a === undefined))
      return outcome(done, `the scheduled function's parameters are ${names.join(", ")}, not ${[...byName.keys()].join(", ")}`);
    let race: string | undefined;
    try {
      const report = simulate(module, args as Float32Array[]);
      if (report.raceCount > 0) race = `the kernel has ${describeRaceCounts(report.raceCounts)} (${RACE_HINT}): ${report.races[0]?.message ?? ""}`;
    } catch (err) {
      return outcome(done, `running the kernel failed: ${message(err)}`);
    }
    done.push(compareOutput(output, numerics.reference(inputs, n), n, req.settings, seed, numerics.output));
    if (race !== undefined) return outcome(done, race);
  }
  return outcome(done);
}

function precheckSummary(n: NumericsOutcome): string {
  if (n.error !== undefined) return n.error;
  const bad = n.rounds.find((r) => r.mismatches > 0);
  return bad === undefined ? "no result" : `${bad.mismatches} of ${bad.elements} outputs wrong; first: ${bad.firstMismatch ?? "?"}`;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
