/**
 * Name, usage and summary of the subcommands that load only when they run (`tessera-grade --help`
 * lists them without loading the tuner, the job queue or the batch reports). This module imports
 * nothing: each command's module spreads its line in, so the two never disagree.
 */
export interface CommandLine {
  readonly name: string;
  readonly usage: string;
  readonly summary: string;
}

export const tuneLine: CommandLine = {
  name: "tune",
  usage: "tune [options]",
  summary: "search autoTuningSchedule's space (meta-schedule), print the best as trace_submission.ts (pnpm grade --tune)",
};

export const batchLine: CommandLine = {
  name: "batch",
  usage: "batch DIR --out OUT [options]",
  summary: "grade every submission (sub-folder or .zip) in DIR, N at a time; per-submission results and OUT/summary.csv, histogram.svg, pass-rates.md",
};

export const packageLine: CommandLine = {
  name: "package-gradescope",
  usage: "package-gradescope --out FILE.zip [--allow-dirty]",
  summary: "write the Gradescope autograder package (setup.sh, run_autograder, the repository)",
};

export const workerLine: CommandLine = {
  name: "worker",
  usage: "worker --redis URL [--gpu N] [--concurrency K]",
  summary: "a worker of the job queue: grades submissions of `batch --redis` and measures candidates of tuning runs",
};
