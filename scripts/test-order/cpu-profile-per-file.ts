/**
 * A setup file (vitest.config.ts adds it when TESSERA_TEST_CPU_PROFILE names a folder): writes a V8
 * CPU profile of each test file's tests to that folder, named after the file. vitest's
 * `--execArgv=--cpu-prof` writes nothing for the forks pool's workers (they end without a normal
 * exit), so the profiler is driven from inside the worker through the inspector. Read a profile
 * with `pnpm exec tsx scripts/test-order/cpu-profile-table.ts FILE.cpuprofile`.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, relative } from "node:path";
import { afterAll, beforeAll, expect } from "vitest";

const folder = process.env.TESSERA_TEST_CPU_PROFILE;
if (folder !== undefined && folder !== "") {
  const session = new Session();
  const file = relative(process.cwd(), expect.getState().testPath ?? "unknown");
  beforeAll(async () => {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 1000 });
    await session.post("Profiler.start");
  });
  afterAll(async () => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${file.replace(/[/\\]/g, "__")}.cpuprofile`), JSON.stringify(profile));
  });
}
