/**
 * TVM's tuning logs in the work dir: `logs/task_scheduler.log` (the scheduler's messages and the
 * summary tables) and `logs/task_<i>_<name>.log` per task (its design spaces, every trial), every
 * level included; the messages also go on to the caller's logger.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { LogLevel, Logger } from "../tune-context.js";

export function logDirOf(workDir: string): string {
  return join(workDir, "logs");
}

/** A logger that appends to `logs/<fileName>` in the work dir and forwards to `forward`. */
export function fileLogger(workDir: string, fileName: string, forward: Logger): Logger {
  const dir = logDirOf(workDir);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, fileName);
  return (level: LogLevel, message: string) => {
    appendFileSync(file, `${new Date().toISOString()} [${level.toUpperCase()}] ${message}\n`);
    forward(level, message);
  };
}

/** The log file of task `id` (its name made safe for a file name). */
export function taskLogFileName(id: number, name: string): string {
  return `task_${id}_${name.replace(/[^A-Za-z0-9_.-]/g, "_")}.log`;
}
