/**
 * A setup file (vitest.config.ts adds it when TESSERA_TEST_CPU_PROF names a folder): a V8 CPU
 * profile of each test file's worker thread, from before the file's import to its last hook,
 * written to that folder as `<test file path with / as __>.cpuprofile`. The inspector's profiler is
 * used rather than `node --cpu-prof` because vitest ends its fork workers before they write one.
 * Threads the file starts are not in it, nor child processes.
 * `pnpm exec tsx scripts/profile/rank-cpu-profiles.ts FOLDER` ranks the functions.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join, relative } from "node:path";
import { afterAll, expect } from "vitest";

const folder = process.env.TESSERA_TEST_CPU_PROF;
if (folder !== undefined && folder !== "") {
  const file = relative(process.cwd(), expect.getState().testPath ?? "unknown");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 500 });
  await session.post("Profiler.start");
  afterAll(async () => {
    const { profile } = await session.post("Profiler.stop");
    session.disconnect();
    writeFileSync(join(folder, `${file.replaceAll("/", "__")}.cpuprofile`), JSON.stringify(profile));
  });
}
