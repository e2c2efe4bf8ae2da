/**
 * Batch progress on stderr: on a terminal one bar redrawn in place (with the step the grader is
 * on), elsewhere (CI logs, a file) one line per finished submission.
 */
import type { GradeIO } from "../cli/io.js";
import type { SubmissionOutcome } from "./grade-one.js";

export interface BatchProgress {
  /** Submission `index` (0-based) of `total` is being graded. */
  started(index: number, total: number, name: string): void;
  /** What the grader is doing for the current submission. */
  step(message: string): void;
  finished(index: number, total: number, outcome: SubmissionOutcome): void;
  /** Clears what is left of the bar before the final lines. */
  close(): void;
}

const BAR_WIDTH = 20;
/** Long steps and names are cut so the redrawn line never wraps (which would break the redraw). */
const MAX_LINE = 100;
const CLEAR_LINE = "\r\x1b[2K";

export function progressReporter(io: GradeIO): BatchProgress {
  return io.interactive ? barProgress(io) : lineProgress(io);
}

/** `[3/10] alice: 80 / 80 (3.1 s)` per submission. */
function lineProgress(io: GradeIO): BatchProgress {
  return {
    started: () => {},
    step: () => {},
    finished: (index, total, outcome) => io.stderr(`[${index + 1}/${total}] ${outcome.name}: ${outcomeText(outcome)}\n`),
    close: () => {},
  };
}

/** `[#####---------------] 3/10 alice (checking …)`; errors stay on the screen above the bar. */
function barProgress(io: GradeIO): BatchProgress {
  let current = { done: 0, total: 0, name: "" };
  let drawn = false;
  const draw = (detail: string): void => {
    const filled = current.total === 0 ? 0 : Math.round((current.done / current.total) * BAR_WIDTH);
    const bar = `[${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${current.done}/${current.total} ${current.name}`;
    io.stderr(`${CLEAR_LINE}${truncate(`${bar} (${detail})`.replace(/\s+/g, " "), MAX_LINE)}`);
    drawn = true;
  };
  return {
    started: (index, total, name) => {
      current = { done: index, total, name };
      draw("starting…");
    },
    step: (message) => draw(`${message}…`),
    finished: (index, total, outcome) => {
      current = { done: index + 1, total, name: outcome.name };
      if (outcome.status === "error") io.stderr(`${CLEAR_LINE}${outcome.name}: ${outcomeText(outcome)}\n`);
      draw(outcome.status === "graded" ? `${formatPoints(outcome.score)}/${formatPoints(outcome.maxScore)}` : "error");
    },
    close: () => {
      if (drawn) io.stderr(CLEAR_LINE);
      drawn = false;
    },
  };
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
