/**
 * Numerics without a GPU, on the full-size kernel: the schedule lowered at the graded size (the
 * kernel a GPU would run) and a sample of its thread blocks simulated, each block complete over K
 * (block-sample.ts chooses them: corners, one per face of the grid, random ones). A round's
 * blocks run one after another in one launch (`SimulationOptions.blocks`), and the elements each
 * writes are known: the output starts poisoned with a NaN of a payload no arithmetic produces
 * (`UNWRITTEN_BITS`); after each block (`afterBlock`) the elements whose bits changed are its tile
 * (a NaN it computed included: that is a mismatch), taken out and poisoned again. Those elements
 * are compared with the assignment's float64 reference computed on the host for them alone.
 * Races, out-of-bounds accesses and barrier divergence inside the sampled blocks fail the check
 * as in a whole launch (races on global memory between two sampled blocks too; a race with a
 * block left out of the sample is not seen). What no sample can see, a kernel that leaves part of
 * the output unwritten (a grid too small, a condition that skips a strip) or writes an element from two
 * threads, is checked afterwards over the whole grid by the store coverage (output-coverage.ts:
 * 0.2–0.4 s at 2048³).
 *
 * Cost (measured on the 2-core grading machine): one thread block of the 2048³ manual schedule
 * (256 threads, 2.1e7 statements) takes 60–160 ms with the race detector. A check may simulate
 * `SAMPLE_WORK_PER_ROUND` = 1e8 statements per round of inputs, 5e8 over the manifest's 5 rounds:
 * 23 of the manual schedule's 1024 blocks, or 6 of the 256 blocks of the solution's tuned trace
 * (7.7e7 statements each). Rounds are independent, so a grading runs about half of them in a
 * worker thread (rounds/rounds-helper.ts). The blocks go to the rounds in order; with fewer blocks
 * than rounds, the last rounds are left out. A kernel whose one block is larger than the whole
 * budget is not sampled (the caller falls back to the
 * reduced-size replay).
 */
import type { LoweredModule } from "@tessera/codegen";
import { type Dim3, describeRaceCounts, formatDim3, simulate } from "@tessera/simulator";
import type { AssignmentBinding } from "../assignment.js";
import { workloadSizeLabel } from "../workload-size.js";
import type { Numerics } from "../manifest/index.js";
import { sampleBlocks } from "./block-sample.js";
import { checkOutputCoverage } from "./output-coverage.js";
import type { NumericsRound, NumericsSample } from "./numerics-types.js";
import { blockWork } from "./work-estimate.js";

/** What usually causes a race the simulator reports (shared or global memory). */
export const RACE_HINT = "a missing barrier, or several threads or blocks writing one element?";

/** Statements simulated per round of a check (see the cost note above). */
export const SAMPLE_WORK_PER_ROUND = 1e8;

/** A sampled check that ran. */
export interface SampleResult {
  readonly ran: true;
  readonly rounds: readonly NumericsRound[];
  readonly sample: NumericsSample;
  readonly error?: string;
}

export type SampledNumerics =
  | SampleResult
  /** The kernel cannot be checked by sampling; `why` says so. */
  | { readonly ran: false; readonly why: string };

export interface SampledRequest {
  /** The schedule lowered at size `n` (n×n×n). */
  readonly module: LoweredModule;
  /** Its inputs, output and float64 reference. */
  readonly binding: AssignmentBinding;
  readonly n: number;
  readonly settings: Pick<Numerics, "rounds" | "rtol" | "atol" | "inputRange">;
  readonly seed: number;
  /** Statements the check may simulate over all its rounds (default: rounds × SAMPLE_WORK_PER_ROUND). */
  readonly workBudget?: number;
}

/** What a sampled check will run: the kernel, and the thread blocks of each round. */
export interface SamplePlan {
  readonly module: LoweredModule;
  readonly binding: AssignmentBinding;
  readonly n: number;
  readonly settings: SampledRequest["settings"];
  /** Seed of round 0; round r uses seed + r. */
  readonly seed: number;
  readonly grid: Dim3;
  /** The thread blocks of each round, in the order they run. */
  readonly rounds: readonly (readonly Dim3[])[];
}

/** One round's result, on its own (rounds are independent: they may run anywhere, in any order). */
export interface SampledRound {
  /** The round's comparison; absent when running its blocks failed before there was one. */
  readonly round?: NumericsRound;
  /** Thread blocks that ran. */
  readonly blocks: number;
  /** Why the round fails the check (a failed run, a race, nothing written); mismatches are in `round`. */
  readonly failure?: string;
}

/** The sample a check runs, or why the kernel cannot be sampled. */
export function planSample(req: SampledRequest): { readonly ok: true; readonly plan: SamplePlan } | { readonly ok: false; readonly why: string } {
  const { module, binding, n, settings } = req;
  if (module.kernels.length !== 1) {
    return {
      ok: false,
      why: `the schedule lowers to ${module.kernels.length} kernels, and blocks of a kernel that reads another kernel's output cannot be checked on their own`,
    };
  }
  const kernel = module.kernels[0]!;
  const names = module.source.params.map((p) => module.source.bufferMap.get(p)?.name ?? p.name);
  const expected = [...binding.numerics.inputNames, binding.numerics.output];
  if (names.join(",") !== expected.join(",") || module.workspaces.length > 0) {
    return {
      ok: false,
      why: `the scheduled function's parameters are ${names.join(", ")}${module.workspaces.length > 0 ? " with workspaces" : ""}, not ${expected.join(", ")}`,
    };
  }
  const budget = req.workBudget ?? settings.rounds * SAMPLE_WORK_PER_ROUND;
  const perBlock = blockWork(kernel);
  const maxBlocks = Math.floor(budget / perBlock);
  if (maxBlocks < 1) {
    return {
      ok: false,
      why: `one thread block of the ${workloadSizeLabel(binding, n)} kernel executes about ${perBlock.toExponential(1)} statements, more than the ${budget.toExponential(1)} a sampled check may simulate`,
    };
  }
  const grid = kernel.launch.grid as unknown as Dim3;
  return { ok: true, plan: { module, binding, n, settings, seed: req.seed, grid, rounds: sampleBlocks(grid, settings.rounds, maxBlocks, req.seed) } };
}

/** Round `r` of `plan`: its blocks in one launch on the round's inputs, and what they wrote compared. */
export function runSampledRound(plan: SamplePlan, r: number): SampledRound {
  const { module, n, settings } = plan;
  const numerics = plan.binding.numerics;
  const roundBlocks = plan.rounds[r]!;
  const seed = plan.seed + r;
  const inputs = numerics.inputs(n, seed, settings.inputRange);
  const output = new Float32Array(n * n);
  new Uint32Array(output.buffer).fill(UNWRITTEN_BITS);
  const tiles: BlockTile[] = [];
  let report: ReturnType<typeof simulate>;
  try {
    // One launch of the round's blocks; after each, what it wrote is taken out of the output.
    report = simulate(module, [...inputs, output], { blocks: roundBlocks, afterBlock: (_, block) => tiles.push(takeWritten(output, block)) });
  } catch (err) {
    return {
      blocks: tiles.length,
      failure: `running the sampled thread blocks of the ${workloadSizeLabel(plan.binding, n)} kernel failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const round = compareTiles(tiles, plan.binding, inputs, n, settings, seed);
  const blocks = roundBlocks.length;
  if (report.raceCount > 0) {
    return {
      round,
      blocks,
      failure: `the kernel has ${describeRaceCounts(report.raceCounts)} in the sampled thread blocks (${RACE_HINT}): ${report.races[0]?.message ?? ""}`,
    };
  }
  if (round.elements === 0)
    return { round, blocks, failure: `the sampled thread blocks (${roundBlocks.map(formatDim3).join(", ")}) wrote no element of ${numerics.output}` };
  return { round, blocks };
}

/** Whether a round ends the check (the rounds after it are not counted). */
export function endsCheck(result: SampledRound): boolean {
  return result.failure !== undefined;
}

/**
 * The check's outcome from its rounds' results, as if they had run one after another: up to the
 * first that failed to run, raced or wrote nothing (a round with mismatches goes on, to count them
 * all); then, when all ran cleanly, whether the whole grid writes all of the output.
 */
export function assembleSample(plan: SamplePlan, results: readonly SampledRound[], started: number): SampleResult {
  const rounds: NumericsRound[] = [];
  let blocks = 0;
  let elements = 0;
  const ran = new Set<string>();
  const sample = (coverage?: string): NumericsSample => ({
    blocks,
    distinctBlocks: ran.size,
    gridBlocks: plan.grid[0] * plan.grid[1] * plan.grid[2],
    elements,
    seconds: (performance.now() - started) / 1000,
    ...(coverage === undefined ? {} : { coverage }),
  });
  for (const [r, result] of results.entries()) {
    blocks += result.blocks;
    for (const block of plan.rounds[r]?.slice(0, result.blocks) ?? []) ran.add(block.join(","));
    if (result.round !== undefined) {
      rounds.push(result.round);
      elements += result.round.elements;
    }
    if (result.failure !== undefined) return { ran: true, rounds, sample: sample(), error: result.failure };
  }
  // The sample compares what its blocks wrote; whether the whole grid writes all of the output,
  // each element from one thread, is checked apart (a grid too small passes every sampled block).
  const output = plan.binding.numerics.output;
  const coverage = checkOutputCoverage(plan.module, output);
  const coverageText = coverage.checked ? coverage.summary : `whether every element of ${output} is written was not checked (${coverage.why})`;
  if (coverage.checked && coverage.problem !== undefined) return { ran: true, rounds, sample: sample(coverageText), error: coverage.problem };
  return { ran: true, rounds, sample: sample(coverageText) };
}

/** The sampled check, every round here, one after another (stopping at the first that ends it). */
export function sampledNumerics(req: SampledRequest): SampledNumerics {
  const started = performance.now();
  const planned = planSample(req);
  return planned.ok ? runSample(planned.plan, started) : { ran: false, why: planned.why };
}

/** Every round of `plan` here, one after another, up to the first that ends the check. */
export function runSample(plan: SamplePlan, started: number): SampleResult {
  const results: SampledRound[] = [];
  for (let r = 0; r < plan.rounds.length; r++) {
    const result = runSampledRound(plan, r);
    results.push(result);
    if (endsCheck(result)) break;
  }
  return assembleSample(plan, results, started);
}

/** The elements one block wrote, and their values. */
interface BlockTile {
  readonly block: Dim3;
  readonly indices: Int32Array;
  readonly values: Float32Array;
}

/**
 * The poison of the output: a quiet NaN whose payload computed values never carry (arithmetic yields the
 * canonical 0x7fc00000), written and compared as bits, so a NaN the kernel stores counts as written.
 */
const UNWRITTEN_BITS = 0x7fc0dead;

/** The elements of `out` that no longer hold the poison (what `block` wrote), taken out: they are poisoned again. */
function takeWritten(out: Float32Array, block: Dim3): BlockTile {
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  const indices: number[] = [];
  const P = UNWRITTEN_BITS;
  const len = bits.length;
  let i = 0;
  // A block writes a small part of the output: eight elements are tested at once, and looked at one by one
  // only where one of them was written.
  for (; i + 8 <= len; i += 8) {
    if (
      ((bits[i]! ^ P) |
        (bits[i + 1]! ^ P) |
        (bits[i + 2]! ^ P) |
        (bits[i + 3]! ^ P) |
        (bits[i + 4]! ^ P) |
        (bits[i + 5]! ^ P) |
        (bits[i + 6]! ^ P) |
        (bits[i + 7]! ^ P)) ===
      0
    )
      continue;
    for (let k = i; k < i + 8; k++) if (bits[k] !== P) indices.push(k);
  }
  for (; i < len; i++) if (bits[i] !== P) indices.push(i);
  const values = new Float32Array(indices.length);
  indices.forEach((at, k) => {
    values[k] = out[at]!;
    bits[at] = P;
  });
  return { block, indices: Int32Array.from(indices), values };
}

/** One round: every sampled element against the reference, |got − ref| ≤ atol + rtol·|ref|. */
function compareTiles(
  tiles: readonly BlockTile[],
  binding: AssignmentBinding,
  inputs: readonly Float32Array[],
  n: number,
  tol: { rtol: number; atol: number },
  seed: number,
): NumericsRound {
  const indices = new Int32Array(tiles.reduce((s, t) => s + t.indices.length, 0));
  let at = 0;
  for (const t of tiles) {
    indices.set(t.indices, at);
    at += t.indices.length;
  }
  const reference = binding.numerics.referenceAt(inputs, n, indices);
  let mismatches = 0;
  let maxAbsError = 0;
  let firstMismatch: string | undefined;
  let k = 0;
  for (const t of tiles) {
    for (let e = 0; e < t.indices.length; e++, k++) {
      const got = t.values[e]!;
      const ref = reference[k]!;
      const d = Math.abs(got - ref);
      if (d <= tol.atol + tol.rtol * Math.abs(ref)) {
        if (d > maxAbsError) maxAbsError = d;
        continue;
      }
      mismatches++;
      if (firstMismatch === undefined) {
        const i = t.indices[e]!;
        firstMismatch = `${binding.numerics.output}[${Math.floor(i / n)}, ${i % n}] = ${got.toPrecision(6)} (written by thread block ${formatDim3(t.block)}); the reference is ${ref.toPrecision(6)}`;
      }
    }
  }
  return { seed, elements: indices.length, mismatches, unwritten: 0, maxAbsError, ...(firstMismatch === undefined ? {} : { firstMismatch }) };
}
