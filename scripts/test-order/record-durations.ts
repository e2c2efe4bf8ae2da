/**
 * Records test durations for the duration sequencer from vitest JSON reports of an idle run:
 *   pnpm exec vitest run --reporter=json --outputFile=/tmp/t.json   (and the slow project likewise)
 *   pnpm exec tsx scripts/test-order/record-durations.ts /tmp/t.json [more reports...]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { durationsFromReport, parseDurations } from "./durations.js";

const target = fileURLToPath(new URL("./test-durations.json", import.meta.url));
const root = fileURLToPath(new URL("../..", import.meta.url));
const reports = process.argv.slice(2);
if (reports.length === 0) {
  console.error("usage: tsx scripts/test-order/record-durations.ts REPORT.json [REPORT.json...]");
  process.exit(2);
}
let durations: Map<string, number>;
try {
  durations = parseDurations(JSON.parse(readFileSync(target, "utf8")));
} catch {
  durations = new Map();
}
for (const report of reports) durations = durationsFromReport(JSON.parse(readFileSync(report, "utf8")), root, durations);
// Files removed since the last recording drop out.
const kept = [...durations].filter(([file]) => existsSync(join(root, file)));
const sorted = Object.fromEntries(kept.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
writeFileSync(target, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`${kept.length} test files' durations in ${target}`);
