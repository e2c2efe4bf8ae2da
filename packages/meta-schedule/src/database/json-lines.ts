/**
 * Append-only JSON-lines files, robust to a run killed while writing: one fsynced write per line, and an
 * interrupted last line repaired with a warning (docs/architecture/meta-schedule-notes.md).
 */
import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseError } from "../errors.js";
import type { Logger } from "../tune-context.js";

export interface JSONLine {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly value: unknown;
}

const NEWLINE = 0x0a;

export interface ReadOptions {
  readonly log: Logger;
  /** Whether an unreadable last line could be the start of one of our lines (else it is corruption). */
  readonly looksLikeOurs: (text: string) => boolean;
  /** Repair the file (default); a read-only reader only ignores the incomplete line. */
  readonly repair: boolean;
}

/** The JSON values of the file's non-blank lines; [] for a missing file. */
export function readJSONLines(file: string, opts: ReadOptions): JSONLine[] {
  if (!existsSync(file)) return [];
  const bytes = withFileErrors(file, "read", () => readFileSync(file));
  const lines = bytes.toString("utf8").split("\n");
  const endsWithNewline = bytes.length === 0 || bytes[bytes.length - 1] === NEWLINE;
  if (endsWithNewline) lines.pop();
  const out: JSONLine[] = [];
  for (let k = 0; k < lines.length; k++) {
    const text = lines[k]!;
    if (text.trim() === "") continue;
    const isUnterminatedLast = k === lines.length - 1 && !endsWithNewline;
    try {
      out.push({ line: k + 1, value: JSON.parse(text) as unknown });
    } catch (err) {
      if (!isUnterminatedLast || !opts.looksLikeOurs(text)) {
        throw new DatabaseError(file, k + 1, `not a line of a tuning database (${(err as Error).message}); the file is corrupt or of another format`);
      }
      if (opts.repair) withFileErrors(file, "repair", () => discardIncompleteLastLine(file, bytes, k + 1, opts.log));
      else
        opts.log(
          "warn",
          `${file}:${k + 1}: the last line is incomplete (a tuning run was probably interrupted while writing it); it is ignored (the database is open read-only)`,
        );
      return out;
    }
    if (isUnterminatedLast && opts.repair) withFileErrors(file, "repair", () => appendFileSync(file, "\n"));
  }
  return out;
}

function discardIncompleteLastLine(file: string, bytes: Buffer, line: number, log: Logger): void {
  const keep = bytes.lastIndexOf(NEWLINE) + 1;
  const damaged = `${file}.damaged`;
  appendFileSync(damaged, Buffer.concat([bytes.subarray(keep), Buffer.from("\n")]));
  truncateSync(file, keep);
  log(
    "warn",
    `${file}:${line}: the last line is incomplete (a tuning run was probably interrupted while writing it); it was discarded (its text is kept in ${damaged}), the ${line - 1} line(s) before it are intact, and new records go after them`,
  );
}

/** How many non-blank lines the file holds now (0 for a missing file): what its next line's index is. */
export function countJSONLines(file: string): number {
  if (!existsSync(file)) return 0;
  const text = withFileErrors(file, "read", () => readFileSync(file, "utf8"));
  return text.split("\n").filter((l) => l.trim() !== "").length;
}

/** Appends one line durably (see the module comment); a file it creates is made durable in its directory too. */
export function appendJSONLine(file: string, value: unknown): void {
  appendJSONLines(file, [value]);
}

/**
 * Appends lines durably with one write and one fsync (a batch of records costs one sync, not one a
 * line); when it returns, every line is on disk. A run killed during the write leaves whole lines
 * and at most one incomplete last line, which the next opening repairs.
 */
export function appendJSONLines(file: string, values: readonly unknown[]): void {
  if (values.length === 0) return;
  const data = Buffer.from(values.map((v) => `${JSON.stringify(v)}\n`).join(""), "utf8");
  const created = !existsSync(file);
  withFileErrors(file, "append to", () => {
    const fd = openSync(file, "a");
    try {
      let written = 0;
      while (written < data.length) written += writeSync(fd, data, written, data.length - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  });
  if (created) syncDirectory(dirname(file));
}

/** Best effort: some platforms cannot fsync a directory. */
function syncDirectory(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The data itself is synced; only the new directory entry might not be.
  }
}

/** Runs a file operation, reporting an operating-system error as a DatabaseError naming the file. */
export function withFileErrors<T>(file: string, action: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (typeof code !== "string") throw err;
    throw new DatabaseError(file, undefined, `cannot ${action} the file (${code}: ${(err as Error).message})`);
  }
}
