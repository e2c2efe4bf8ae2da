/**
 * One tuning run per work directory at a time: two runs writing one database, history and curve
 * at once mix their output (issue 33). The lock is a file, `tune.lock`, created exclusively and
 * holding the owner's pid, host and start time; it is removed when the run ends. A lock whose
 * process is gone (same host, no such pid) is stale and taken over with a warning; a lock of
 * another host cannot be checked and is refused, naming the file to remove by hand.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { MetaScheduleError } from "../errors.js";
import type { Logger } from "../tune-context.js";

export const LOCK_FILE = "tune.lock";

interface LockOwner {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
}

export interface WorkDirLock {
  readonly file: string;
  release(): void;
}

export class WorkDirBusyError extends MetaScheduleError {
  override name = "WorkDirBusyError";
}

/** Takes the lock of `workDir` (which must exist), or throws a WorkDirBusyError naming its owner. */
export function lockWorkDir(workDir: string, log: Logger = () => undefined): WorkDirLock {
  const file = join(workDir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  for (let tries = 0; tries < 3; tries++) {
    let fd: number;
    try {
      fd = openSync(file, "wx");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw new MetaScheduleError(`cannot lock the work dir: ${file}: ${(err as Error).message}`);
      const owner = readOwner(file);
      if (owner === undefined) continue; // removed meanwhile, or half-written: try again
      if (owner.host === me.host && !isAlive(owner.pid)) {
        log("warn", `${file}: the tuning run that locked this work dir (pid ${owner.pid}, started ${owner.started}) is gone; its lock is taken over`);
        rmSync(file, { force: true });
        continue;
      }
      throw new WorkDirBusyError(
        `the work dir ${workDir} is being tuned by another run (pid ${owner.pid} on ${owner.host}, started ${owner.started}): two runs would mix their records and history. ` +
          `Wait for it, or use another --work-dir; if that run is gone, remove ${file}.`,
      );
    }
    try {
      writeSync(fd, `${JSON.stringify(me)}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      file,
      release: () => {
        if (released) return;
        released = true;
        if (readOwner(file)?.pid === me.pid) rmSync(file, { force: true });
      },
    };
  }
  throw new WorkDirBusyError(
    `the work dir ${workDir} could not be locked: ${file} is unreadable or keeps changing (another run starting there?); if no run is, remove it`,
  );
}

function readOwner(file: string): LockOwner | undefined {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as Partial<LockOwner>;
    if (typeof value.pid !== "number" || typeof value.host !== "string") return undefined;
    return { pid: value.pid, host: value.host, started: typeof value.started === "string" ? value.started : "at an unknown time" };
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
