/**
 * Batch progress on stderr: on a terminal a cli-progress bar (submissions done, elapsed time,
 * ETA, what is being graded) with errors printed above it; elsewhere (CI logs, a file) one line
 * per finished submission, with the ETA.
 */
import { Writable } from "node:stream";
import { MultiBar, type SingleBar } from "cli-progress";
import { formatDuration } from "@tessera/meta-schedule";
import type { GradeIO } from "../cli/io.js";
import type { SubmissionOutcome } from "./grade-one.js";

export interface BatchProgress {
  /** `total` submissions are to be graded in this run. */
  start(total: number): void;
  /** Submission `name` is being graded. */
  started(name: string): void;
  /** What the grader is doing for submission `name` (in-process grading only). */
  step(name: string, message: string): void;
  finished(outcome: SubmissionOutcome): void;
  /** Clears what is left of the bar before the final lines. */
  close(): void;
}

export interface ProgressOptions {
  /** Milliseconds clock for the elapsed time and the ETA (default performance.now). */
  readonly now?: () => number;
}

/** Long steps and names are cut so the bar's line never wraps (which would break the redraw). */
const MAX_DETAIL = 60;

export function progressReporter(io: GradeIO, opts: ProgressOptions = {}): BatchProgress {
  return io.interactive ? barProgress(io) : lineProgress(io, opts.now ?? (() => performance.now()));
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

function barProgress(io: GradeIO): BatchProgress {
  const bars = new MultiBar({
    stream: terminalStream(io),
    format: "grading [{bar}] {value}/{total} | elapsed {duration_formatted} | ETA {eta_formatted} | {current}",
    hideCursor: false,
    clearOnComplete: true,
    etaBuffer: 20,
    barsize: 20,
  });
  let bar: SingleBar | undefined;
  const current = new Map<string, string>();
  const currentText = (): string => {
    const names = [...current.entries()];
    const text = names.length === 1 ? `${names[0]![0]} (${names[0]![1]})` : names.map(([name]) => name).join(", ");
    return truncate(text.replace(/\s+/g, " "), MAX_DETAIL);
  };
  // Drawn at once on every event (a few per submission), not only at cli-progress's next tick.
  const redraw = (): void => {
    bar?.update({ current: currentText() });
    bars.update();
  };
  return {
    start: (total) => {
      bar = bars.create(total, 0, { current: "" });
      bars.update();
    },
    started: (name) => {
      current.set(name, "starting…");
      redraw();
    },
    step: (name, message) => {
      if (!current.has(name)) return;
      current.set(name, `${message}…`);
      redraw();
    },
    finished: (outcome) => {
      current.delete(outcome.name);
      if (outcome.status === "error") bars.log(`${outcome.name}: ${outcomeText(outcome)}\n`);
      bar?.increment(1, { current: currentText() });
      bars.update();
    },
    close: () => {
      // MultiBar writes logged lines at its next redraw; stop() alone would drop the last ones.
      bars.update();
      bars.stop();
    },
  };
}

/** A terminal stream over `io.stderr`, as cli-progress draws on (it asks isTTY and the width). */
function terminalStream(io: GradeIO): NodeJS.WritableStream {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      io.stderr(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      callback();
    },
    decodeStrings: false,
  });
  return Object.assign(stream, { isTTY: true, columns: process.stderr.columns ?? 120 });
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
