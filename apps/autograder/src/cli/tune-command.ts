/**
 * `tessera-grade tune [options]` (`pnpm grade --tune`): samples autoTuningSchedule, searches its
 * space with @tessera/meta-schedule (measuring on the GPU, or estimating without one) and prints
 * the best correct candidate as trace_submission.ts between BEGIN/END markers, or writes it there
 * with --write. Exit code 0 when a candidate was found, 1
 * when none was, 2 for a bad command line.
 */
import { existsSync, statSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { AssignmentBinding } from "../assignment.js";
import { loadManifest } from "../manifest/index.js";
import type { SandboxLimits } from "../sandbox/index.js";
import { STRATEGY_NAMES, type StrategyName } from "@tessera/meta-schedule";
import { MAX_TRIALS, TuneError, type TuneResult, formatHandIn, formatTuneReport, formatWritten, tuneSearchSpace } from "../tune/index.js";
import { type GradeCommand, UsageError } from "./command.js";
import { tuneLine } from "./specs.js";
import { chooseGpu } from "./gpu-choice.js";
import type { GradeIO } from "./io.js";
import { RUN_OPTIONS, RUN_OPTIONS_HELP, chosenAssignment, integerOption, sandboxLimitOptions, userPath } from "./options.js";

const DEFAULT_TRIALS = 32;
const DEFAULT_SEED = 1;

export const TUNE_OPTIONS_HELP = [
  "  --dir DIR          the folder with auto_tuning.ts (default: the assignment folder)",
  `  --trials N         candidates the search measures, and samples of autoTuningSchedule (default ${DEFAULT_TRIALS}, at most ${MAX_TRIALS})`,
  `  --seed N           seed of the search; sample k uses seed N + k (default ${DEFAULT_SEED})`,
  `  --strategy S       ${STRATEGY_NAMES.join(" or ")} (default evolutionary; replay-trace is random search, for comparison)`,
  "  --work-dir DIR     where the tuning database, logs and tuning curve go (default: a new temporary folder)",
  "  --write            replace DIR/trace_submission.ts with the result instead of printing it",
  "  --no-gpu           tune as if there were no GPU (candidates are ranked by the simulator's estimates, not measured)",
  RUN_OPTIONS_HELP,
].join("\n");

export interface TuneInvocation {
  readonly dir: string;
  readonly trials: number;
  readonly seed: number;
  readonly strategy: StrategyName;
  readonly workDir: string | undefined;
  readonly write: boolean;
  readonly noGpu: boolean;
  readonly limits: SandboxLimits;
}

export function parseTuneArgs(args: readonly string[], binding: AssignmentBinding): TuneInvocation {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    strict: true,
    options: {
      ...RUN_OPTIONS,
      dir: { type: "string" },
      trials: { type: "string" },
      strategy: { type: "string" },
      "work-dir": { type: "string" },
      write: { type: "boolean" },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}" (use --dir DIR to tune another folder)`);
  const dir = values.dir === undefined ? binding.root : userPath(values.dir);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--dir ${dir}: no such folder`);
  return {
    dir,
    trials: integerOption("--trials", values.trials, DEFAULT_TRIALS, 1, MAX_TRIALS),
    seed: integerOption("--seed", values.seed, DEFAULT_SEED, 0, Number.MAX_SAFE_INTEGER - MAX_TRIALS),
    strategy: strategyOption(values.strategy),
    workDir: values["work-dir"] === undefined ? undefined : userPath(values["work-dir"]),
    write: values.write === true,
    noGpu: values["no-gpu"] === true,
    limits: sandboxLimitOptions(values),
  };
}

function strategyOption(text: string | undefined): StrategyName {
  if (text === undefined) return "evolutionary";
  const known: readonly string[] = STRATEGY_NAMES;
  if (!known.includes(text)) throw new UsageError(`--strategy must be ${STRATEGY_NAMES.join(" or ")}, got "${text}"`);
  return text as StrategyName;
}

/** Tunes per `inv`, prints the report and the result (or writes it); returns the exit code. */
export async function runTune(inv: TuneInvocation, binding: AssignmentBinding, io: GradeIO): Promise<number> {
  const manifest = loadManifest(binding.manifestPath);
  const choice = chooseGpu(inv.noGpu);
  let result: TuneResult;
  try {
    result = await tuneSearchSpace({
      submissionDir: inv.dir,
      binding,
      manifest,
      trials: inv.trials,
      seed: inv.seed,
      strategy: inv.strategy,
      ...(inv.workDir === undefined ? {} : { workDir: inv.workDir }),
      gpu: choice.gpu,
      ...(choice.reason === undefined ? {} : { noGpuReason: choice.reason }),
      limits: inv.limits,
      onProgress: (message) => io.stderr(`… ${message}\n`),
    });
  } catch (err) {
    if (!(err instanceof TuneError)) throw err;
    io.stderr(`tessera-grade tune: cannot tune: ${err.message}\n`);
    return 1;
  } finally {
    choice.gpu?.dispose();
  }
  io.stdout(formatTuneReport(result));
  if (result.chosen === undefined) return 1;
  io.stdout("\n");
  if (inv.write) {
    const path = join(inv.dir, result.traceFile);
    await writeFile(path, result.chosen.text);
    io.stdout(formatWritten(result, path));
  } else io.stdout(formatHandIn(result, inv.dir));
  return 0;
}

export const tuneCommand: GradeCommand = {
  ...tuneLine,
  help: TUNE_OPTIONS_HELP,
  run: async (args, io) => {
    const binding = chosenAssignment(args);
    return runTune(parseTuneArgs(args, binding), binding, io);
  },
};
