/**
 * Progress of a tuning run: on a terminal, a cli-progress bar with the trials done, the best speed
 * and an ETA, with log lines printed above it; elsewhere (a file, CI), plain lines — every log
 * line, and a progress line every `everyTrials` trials and at the end. The bar needs cli-progress
 * (an optional peer dependency).
 */
import type { MultiBar, SingleBar } from "cli-progress";
import { requireOptionalPeer } from "./optional-peer.js";

export interface ProgressUpdate {
  readonly trialsDone: number;
  /** Best speed so far in GFLOPS; undefined while no trial succeeded. */
  readonly bestGflops?: number | undefined;
  /** Best latency so far in microseconds; undefined while no trial succeeded. */
  readonly bestLatencyUs?: number | undefined;
}

export interface ProgressReporter {
  start(totalTrials: number): void;
  update(progress: ProgressUpdate): void;
  /** Prints a line without breaking the bar. */
  log(line: string): void;
  stop(): void;
}

export interface ProgressOptions {
  readonly stream: NodeJS.WritableStream & { readonly isTTY?: boolean };
  /** Draw a bar (default: whether the stream is a terminal). */
  readonly tty?: boolean;
  /** Milliseconds clock for the elapsed time and the ETA (Date.now by default). */
  readonly now?: () => number;
  /** Plain mode: a progress line every this many trials (16 by default) and at the end. */
  readonly everyTrials?: number;
  /** The latencies are estimates (the simulated runner): the best figure reads "best (estimated) …". */
  readonly estimated?: boolean;
}

export function createProgressReporter(opts: ProgressOptions): ProgressReporter {
  return (opts.tty ?? opts.stream.isTTY === true) ? new BarProgress(opts.stream, opts.estimated === true) : new PlainProgress(opts);
}

function bestText(p: ProgressUpdate, estimated: boolean): string {
  const best = estimated ? "best (estimated)" : "best";
  if (p.bestGflops === undefined || p.bestLatencyUs === undefined) return `${best} N/A`;
  return `${best} ${p.bestGflops.toFixed(4)} GFLOPS (${p.bestLatencyUs.toFixed(4)} us)`;
}

/** Seconds as `1h02m03s`, `2m05s` or `12.3s`. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}h${String(m).padStart(2, "0")}m${rest}s` : `${m}m${rest}s`;
}

class PlainProgress implements ProgressReporter {
  private total = 0;
  private startedAt = 0;
  private lastReported = 0;
  private latest: ProgressUpdate | undefined;
  private readonly now: () => number;
  private readonly every: number;

  constructor(private readonly opts: ProgressOptions) {
    this.now = opts.now ?? Date.now;
    this.every = opts.everyTrials ?? 16;
  }

  start(totalTrials: number): void {
    this.total = totalTrials;
    this.startedAt = this.now();
  }

  update(p: ProgressUpdate): void {
    this.latest = p;
    const due = p.trialsDone >= this.total || Math.floor(p.trialsDone / this.every) > Math.floor(this.lastReported / this.every);
    if (due && p.trialsDone !== this.lastReported) this.report(p);
  }

  private report(p: ProgressUpdate): void {
    this.lastReported = p.trialsDone;
    const elapsed = (this.now() - this.startedAt) / 1000;
    const remaining = Math.max(0, this.total - p.trialsDone);
    const eta = p.trialsDone === 0 ? Number.POSITIVE_INFINITY : (elapsed / p.trialsDone) * remaining;
    const percent = this.total === 0 ? 100 : (100 * Math.min(p.trialsDone, this.total)) / this.total;
    this.log(
      `progress: ${p.trialsDone}/${this.total} trials (${percent.toFixed(1)}%), ${bestText(p, this.opts.estimated === true)}, ` +
        `elapsed ${formatDuration(elapsed)}, ETA ${formatDuration(eta)}`,
    );
  }

  log(line: string): void {
    this.opts.stream.write(`${line}\n`);
  }

  /** The last state, when the run ended early (its strategies had nothing more to try) between two lines. */
  stop(): void {
    if (this.latest !== undefined && this.latest.trialsDone !== this.lastReported) this.report(this.latest);
  }
}

class BarProgress implements ProgressReporter {
  private readonly bars: MultiBar;
  private bar: SingleBar | undefined;

  constructor(
    stream: NodeJS.WritableStream,
    private readonly estimated: boolean,
  ) {
    const cliProgress = requireOptionalPeer<typeof import("cli-progress")>("cli-progress", "draw a progress bar");
    this.bars = new cliProgress.MultiBar({
      stream,
      format: "tuning [{bar}] {value}/{total} trials | {best} | elapsed {duration_formatted} | ETA {eta_formatted}",
      hideCursor: true,
      clearOnComplete: false,
      etaBuffer: 64,
    });
  }

  start(totalTrials: number): void {
    this.bar = this.bars.create(totalTrials, 0, { best: "best N/A" });
  }

  update(p: ProgressUpdate): void {
    this.bar?.update(p.trialsDone, { best: bestText(p, this.estimated) });
  }

  log(line: string): void {
    this.bars.log(`${line}\n`);
  }

  stop(): void {
    // MultiBar writes logged lines at its next redraw; stop() alone would drop the last ones.
    this.bars.update();
    this.bars.stop();
  }
}
