import { type CudaTarget, type LoweredModule, TargetError, cudaTarget, lower } from "@tessera/codegen";
import { TesseraError } from "@tessera/ir";
import {
  BarrierDivergenceError,
  OutOfBoundsError,
  compareWithReference,
  formatBankConflicts,
  formatComparison,
  formatSimulationReport,
} from "@tessera/simulator";
import { CliError } from "../errors.js";
import { parseCommandArgs } from "../help/args.js";
import type { CliIO } from "../io.js";
import { loadScheduled } from "../scheduled.js";
import { parseSeed } from "./run.js";
import { DEFAULT_SIMULATE_TARGET, simulateSpec } from "./specs.js";

/**
 * `tessera simulate FILE [--trace T.json] [--func NAME] [--target NAME] [--seed N] [--bank-conflicts]`:
 * lower a (scheduled) function for a GPU target, run its kernels in the simulator and compare the
 * result with the sequential executor on the unscheduled function. Exit 0 when the outputs match
 * with no shared-memory race, 1 on a mismatch, race, out-of-bounds access or barrier divergence.
 * `--bank-conflicts` also prints the shared-memory bank-conflict table of the simulator's model
 * (conflicts cost time, not correctness: they do not change the exit code).
 */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { positionals, values } = parseCommandArgs(simulateSpec, args);
  if (positionals.length !== 1) throw new CliError(`usage: tessera simulate ${simulateSpec.usage}`);
  const file = positionals[0]!;
  const seed = parseSeed(values.seed);
  const targetName = values.target ?? DEFAULT_SIMULATE_TARGET;
  let target: CudaTarget;
  try {
    target = cudaTarget(targetName, undefined, "tessera simulate");
  } catch (err) {
    if (err instanceof TargetError) throw new CliError(`--target: ${err.message}`);
    throw err;
  }
  const { name, original, func } = await loadScheduled(file, { trace: values.trace, func: values.func });

  let module: LoweredModule;
  try {
    module = lower(func, target);
  } catch (err) {
    if (err instanceof TesseraError) throw new CliError(`${file}: ${name}: cannot lower for ${targetName}: ${err.message}`);
    throw err;
  }

  try {
    const bankConflicts = values["bank-conflicts"] === true;
    const report = compareWithReference(module, original, { seed, simulation: { bankConflicts } });
    io.stdout(formatSimulationReport(report.simulation) + formatComparison(report));
    if (report.simulation.bankConflicts !== undefined) io.stdout(formatBankConflicts(report.simulation.bankConflicts));
    if (report.passed) {
      io.stdout(`OK: ${name} on ${targetName} matches the sequential executor, no shared-memory race\n`);
      return 0;
    }
    const problems = [
      ...(report.matches ? [] : [`${report.mismatchCount} mismatching output element${report.mismatchCount === 1 ? "" : "s"}`]),
      ...(report.simulation.raceCount === 0 ? [] : [`${report.simulation.raceCount} shared-memory race${report.simulation.raceCount === 1 ? "" : "s"}`]),
    ];
    io.stdout(`FAILED: ${name} on ${targetName}: ${problems.join(", ")}\n`);
    return 1;
  } catch (err) {
    // A faulty kernel (not a faulty invocation): report it and fail.
    if (err instanceof OutOfBoundsError || err instanceof BarrierDivergenceError) {
      io.stdout(`FAILED: ${name} on ${targetName}: ${err.message}\n`);
      return 1;
    }
    if (err instanceof TesseraError) throw new CliError(`${file}: ${name}: ${err.message}`);
    throw err;
  }
}
