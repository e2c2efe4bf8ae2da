/**
 * The benchmarks' recorded reports: JSON, or gzipped JSON (`.json.gz`). Large tuning reports are
 * committed gzipped (about 20× smaller) so that the working tree plus the GPU bundle stay within the
 * device tool's 64 MiB copy; every reader of recorded reports goes through here.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";

/** Whether a file name is a recorded report. */
export function isReportFile(name: string): boolean {
  return name.endsWith(".json") || name.endsWith(".json.gz");
}

/** A report's JSON text, gunzipped when its name ends in `.gz`. */
export function readReportText(path: string): string {
  const bytes = readFileSync(path);
  return (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8");
}
