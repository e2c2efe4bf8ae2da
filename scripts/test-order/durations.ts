/** The recorded test durations: test file path (relative to the repository root) → seconds. */
export function parseDurations(value: unknown): Map<string, number> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error("test durations: expected an object of file → seconds");
  const durations = new Map<string, number>();
  for (const [file, seconds] of Object.entries(value)) {
    if (typeof seconds !== "number" || !Number.isFinite(seconds) || seconds < 0) throw new Error(`test durations: ${file} has no duration in seconds`);
    durations.set(file, seconds);
  }
  return durations;
}

interface VitestJsonReport {
  testResults: { name: string; startTime: number; endTime: number }[];
}

function isReport(value: unknown): value is VitestJsonReport {
  return typeof value === "object" && value !== null && Array.isArray((value as { testResults?: unknown }).testResults);
}

/** Durations of every file of a vitest JSON report (`--reporter=json`), relative to `root`, merged over `previous`. */
export function durationsFromReport(report: unknown, root: string, previous: ReadonlyMap<string, number>): Map<string, number> {
  if (!isReport(report)) throw new Error("test durations: not a vitest JSON report (no testResults)");
  const merged = new Map(previous);
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (const result of report.testResults) {
    const file = result.name.startsWith(prefix) ? result.name.slice(prefix.length) : result.name;
    merged.set(file, Math.round((result.endTime - result.startTime) / 100) / 10);
  }
  return merged;
}
