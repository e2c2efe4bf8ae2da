/**
 * CPU seconds per test file, for deciding where a suite's time goes (docs/benchmarks/ci-time.md).
 * A file's wall time in a loaded or two-worker run says little; its CPU does: the worker's own
 * threads plus the child processes it waited for (gcc, nvcc, the sandbox's hosts, spawned command
 * lines), both from /proc/self/stat, so one suite run gives the whole table.
 */

/** One test file's record: a line of the log that `cpu-per-file.ts` appends to. */
export interface FileCpu {
  file: string;
  /** User + system seconds of the worker process's own threads. */
  self: number;
  /** User + system seconds of the child processes the worker waited for meanwhile. */
  children: number;
  wall: number;
}

/** The CPU times of a process from the text of /proc/PID/stat, in clock ticks. */
export function parseProcStat(text: string): { utime: number; stime: number; cutime: number; cstime: number } {
  // The command name (field 2) may hold spaces and parentheses: the fields after it follow the last ')'.
  const close = text.lastIndexOf(")");
  if (close < 0) throw new Error(`/proc/self/stat: no command name in ${JSON.stringify(text.slice(0, 80))}`);
  const fields = text
    .slice(close + 2)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state): utime..cstime are fields 14..17.
  const at = (field: number) => {
    const value = Number(fields[field - 3]);
    if (!Number.isInteger(value)) throw new Error(`/proc/self/stat: field ${field} is not a tick count`);
    return value;
  };
  return { utime: at(14), stime: at(15), cutime: at(16), cstime: at(17) };
}

/** The log's lines (one JSON object each) summed per file: a file of the "isolated" projects may run once per project. */
export function parseCpuLog(text: string): FileCpu[] {
  const perFile = new Map<string, FileCpu>();
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const r = JSON.parse(line) as Partial<FileCpu>;
    if (typeof r.file !== "string" || typeof r.self !== "number" || typeof r.children !== "number" || typeof r.wall !== "number")
      throw new Error(`CPU log line ${i + 1}: expected {file, self, children, wall}, got ${line.slice(0, 120)}`);
    const seen = perFile.get(r.file);
    perFile.set(
      r.file,
      seen === undefined ? (r as FileCpu) : { file: r.file, self: seen.self + r.self, children: seen.children + r.children, wall: seen.wall + r.wall },
    );
  });
  return [...perFile.values()];
}

/** A markdown table of the `top` files by CPU, and the sums over every file. */
export function cpuTable(records: readonly FileCpu[], top: number): string {
  const sorted = [...records].sort((a, b) => b.self + b.children - (a.self + a.children));
  const row = (r: FileCpu) =>
    `| \`${r.file}\` | ${(r.self + r.children).toFixed(1)} | ${r.self.toFixed(1)} | ${r.children.toFixed(1)} | ${r.wall.toFixed(1)} |`;
  const sum = (f: (r: FileCpu) => number) => records.reduce((s, r) => s + f(r), 0).toFixed(1);
  return [
    "| file | CPU s | worker | children | wall s |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...sorted.slice(0, top).map(row),
    `| all ${records.length} files | ${sum((r) => r.self + r.children)} | ${sum((r) => r.self)} | ${sum((r) => r.children)} | ${sum((r) => r.wall)} |`,
  ].join("\n");
}
