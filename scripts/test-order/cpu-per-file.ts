/**
 * A setup file (vitest.config.ts adds it when TESSERA_TEST_CPU_LOG names a file): appends one JSON
 * line per test file to that file with the CPU its worker spent on it (cpu-times.ts). With
 * `isolate: false` a setup file runs before every test file, in the worker that runs it, so the
 * figure covers the file's import (the first file of a worker pays for the modules the others
 * share), its tests and its hooks. `pnpm exec tsx scripts/test-order/cpu-table.ts LOG` prints the table.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll, expect } from "vitest";
import { parseProcStat } from "./cpu-times.js";

const log = process.env.TESSERA_TEST_CPU_LOG;
if (log !== undefined && log !== "") {
  const ticksPerSecond = 100; // USER_HZ: /proc reports ticks of 1/100 s on Linux
  const sample = () => ({ ...parseProcStat(readFileSync("/proc/self/stat", "utf8")), at: performance.now() });
  const start = sample();
  const file = relative(process.cwd(), expect.getState().testPath ?? "unknown");
  afterAll(() => {
    const end = sample();
    const seconds = (ticks: number) => Math.round(ticks) / ticksPerSecond;
    const record = {
      file,
      self: seconds(end.utime + end.stime - start.utime - start.stime),
      children: seconds(end.cutime + end.cstime - start.cutime - start.cstime),
      wall: Math.round(end.at - start.at) / 1000,
    };
    appendFileSync(log, `${JSON.stringify(record)}\n`);
  });
}
