/**
 * The grader's worker threads (the simulator's rounds-worker, batch's grade-worker) from the
 * bundle `pnpm grade` starts from (scripts/fast-start/prebuilt.mjs), for the tests that grade
 * through the command line: each grading there starts a rounds worker, which from the sources
 * loads the whole graph through tsx's loader again (about 2 CPU s a start). The variables are
 * meta-schedule's entry-point.ts overrides, set for the calling file's tests and restored after.
 */
import { afterAll, beforeAll } from "vitest";
import { prebuiltApp } from "../../../../scripts/fast-start/prebuilt.mjs";

export function useBundledGraderWorkers(): void {
  const saved = new Map<string, string | undefined>();
  beforeAll(async () => {
    const bundle = await prebuiltApp("grade");
    for (const [module, file] of Object.entries(bundle.workers)) {
      const key = `TESSERA_WORKER_ENTRY_${module.toUpperCase().replace(/-/g, "_")}`;
      saved.set(key, process.env[key]);
      process.env[key] = file;
    }
  });
  afterAll(() => {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
}
