/**
 * Batch progress on stderr: on a terminal a cli-progress bar (submissions done, elapsed time,
 * ETA, and each submission being graded with its current step and for how long) with errors
 * printed above it as they happen; elsewhere (CI logs, a file) one line
 * per finished submission, with the ETA.
 */
import { Writable } from "node:stream";
import cliProgress, { type Options, type Params, type SingleBar } from "cli-progress";
import { formatDuration } from "@tessera/meta-schedule/report";
import type { GradeIO } from "../cli/io.js";
import type { SubmissionOutcome } from "./grade-one.js";

export interface BatchProgress {
  /** `total` submissions are to be graded in this run. */
  start(total: number): void;
  /** Submission `name` is being graded. */
  started(name: string): void;
  /** What the grader is doing for submission `name` (in-process grading only: grading threads report none). */
  step(name: string, message: string): void;
  finished(outcome: SubmissionOutcome): void;
  /** Clears what is left of the bar before the final lines. */
  close(): void;
}

export interface ProgressOptions {
  /** Milliseconds clock for the elapsed time and the ETA (default performance.now). */
  readonly now?: () => number;
  /** The terminal's width, which the bar's line never exceeds (default: stderr's, else 120). */
  readonly columns?: number;
}

export function progressReporter(io: GradeIO, opts: ProgressOptions = {}): BatchProgress {
  const now = opts.now ?? (() => performance.now());
  return io.interactive ? barProgress(io, now, opts.columns ?? process.stderr.columns ?? 120) : lineProgress(io, now);
}

/** `[3/10] alice: 80 / 80 (3.1 s), ETA 21.7s` per submission. */
function lineProgress(io: GradeIO, now: () => number): BatchProgress {
  let total = 0;
  let done = 0;
  let startedAt = 0;
  return {
    start: (count) => {
      total = count;
      startedAt = now();
    },
    started: () => {},
    step: () => {},
    finished: (outcome) => {
      done++;
      // The rate so far, all jobs together: with N jobs, submissions finish N times as often.
      const eta = ((now() - startedAt) / 1000 / done) * (total - done);
      io.stderr(`[${done}/${total}] ${outcome.name}: ${outcomeText(outcome)}, ETA ${formatDuration(eta)}\n`);
    },
    close: () => {},
  };
}

function barProgress(io: GradeIO, now: () => number, columns: number): BatchProgress {
  const running = new RunningSubmissions(now);
  const bars = new cliProgress.MultiBar({
    stream: terminalStream(io, columns),
    // A function, so that each redraw (also cli-progress's own, every 100 ms) shows the running
    // submissions' current steps and how long each has been at it.
    format: (options, params) => {
      const head = formatBar(options, params);
      return `${head}${running.describe(columns - head.length - 1)}`;
    },
    hideCursor: false,
    clearOnComplete: true,
    etaBuffer: 20,
    barsize: 20,
  });
  let bar: SingleBar | undefined;
  const redraw = (): void => {
    bars.update();
  };
  return {
    start: (total) => {
      bar = bars.create(total, 0);
      redraw();
    },
    started: (name) => {
      running.start(name);
      redraw();
    },
    step: (name, message) => {
      running.step(name, message);
      redraw();
    },
    finished: (outcome) => {
      running.finish(outcome.name);
      // Logged lines are written at the next redraw, which comes right away.
      if (outcome.status === "error") bars.log(`${outcome.name}: ${outcomeText(outcome)}\n`);
      bar?.increment(1);
      redraw();
    },
    close: () => {
      // MultiBar writes logged lines at its next redraw; stop() alone would drop the last ones.
      bars.update();
      bars.stop();
    },
  };
}

/** The fixed part of the bar's line; what is being graded follows it. */
function formatBar(options: Options, params: Params): string {
  return cliProgress.Format.Formatter(
    { ...options, format: "grading [{bar}] {value}/{total} | elapsed {duration_formatted} | ETA {eta_formatted} | " },
    params,
    {},
  );
}

/** The room the detail always gets, even on a narrow terminal (the line is cut there, never wrapped). */
const MIN_DETAIL = 20;

/**
 * The submissions being graded, each with its latest step and when it started: "alice:
 * numerics in the simulator… 12s". Grading threads (`--jobs N` without a GPU) report no steps:
 * theirs reads "grading".
 */
export class RunningSubmissions {
  private readonly entries = new Map<string, { step: string; since: number }>();

  constructor(private readonly now: () => number) {}

  start(name: string): void {
    this.entries.set(name, { step: "grading", since: this.now() });
  }

  step(name: string, message: string): void {
    const entry = this.entries.get(name);
    if (entry !== undefined) entry.step = `${message}…`;
  }

  finish(name: string): void {
    this.entries.delete(name);
  }

  /** One line of at most `width` characters: each running submission with its step, the oldest first. */
  describe(width: number): string {
    const parts = [...this.entries].map(([name, { step, since }]) => {
      const seconds = Math.max(0, Math.floor((this.now() - since) / 1000));
      return `${name}: ${step} ${seconds}s`;
    });
    return truncate(parts.join(" · ").replace(/\s+/g, " "), Math.max(MIN_DETAIL, width));
  }
}

/** A terminal stream over `io.stderr`, as cli-progress draws on (it asks isTTY and the width). */
function terminalStream(io: GradeIO, columns: number): NodeJS.WritableStream {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      io.stderr(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      callback();
    },
    decodeStrings: false,
  });
  return Object.assign(stream, { isTTY: true, columns });
}

function outcomeText(outcome: SubmissionOutcome): string {
  const time = `(${outcome.seconds.toFixed(1)} s)`;
  if (outcome.status === "graded") return `${formatPoints(outcome.score)} / ${formatPoints(outcome.maxScore)} ${time}`;
  return `error ${time}: ${outcome.error.split("\n")[0] ?? ""}`;
}

function formatPoints(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
